import EventLoops

#if canImport(Glibc)
import Glibc
#endif

/// A plain-HTTP listener of its own (one event-loop thread, `metrics-loop-0`) that serves a
/// run's `/metrics` while the run lasts.
///
/// It is bound before the run starts, so a port in use stops the run before anything is sent.
public final class MetricsEndpoint: Sendable {
    /// The port it listens on (the one asked for, or the one the system chose for port 0).
    public let port: Int
    private let loop: EventLoop
    private let listener: Int32

    /// Listens on `host`:`port`, answering `routes`.
    /// - Throws: `MetricsEndpointError` when the port is in use or cannot be bound.
    public static func start(
        host: String,
        port: Int,
        routes: [String: PlainHTTPExchange.Route]
    ) throws(MetricsEndpointError) -> MetricsEndpoint {
        let listener: Int32
        let loop: EventLoop
        do throws(ListenerError) {
            listener = try ListeningSocket.bind(host: host, port: port)
            do {
                loop = try EventLoop(index: 0)
            } catch {
                Glibc.close(listener)
                throw error
            }
        } catch {
            switch error {
            case .addressInUse:
                throw MetricsEndpointError("\(host):\(port) is in use: choose another --metrics-port, or 0 for any")
            case .unusable(let words): throw MetricsEndpointError("cannot listen on \(host):\(port): \(words)")
            }
        }
        PlainHTTPConnection.serve(listener, on: loop, routes: routes)
        loop.start(namePrefix: "metrics-loop-")
        return MetricsEndpoint(port: ListeningSocket.localPort(of: listener), loop: loop, listener: listener)
    }

    private init(port: Int, loop: EventLoop, listener: Int32) {
        self.port = port
        self.loop = loop
        self.listener = listener
    }

    /// Stops listening and closes every scrape connection.
    public func stop() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        loop.stop()
        Glibc.close(listener)
    }
}

/// A metrics listener that could not start, in words.
public struct MetricsEndpointError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
