import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// A plain-HTTP listener of its own (one event-loop thread) that serves a run's `/metrics` while
/// the run lasts.
///
/// It is bound before the run starts, so a port in use stops the run before anything is sent.
public final class MetricsEndpoint: Sendable {
    /// The port it listens on (the one asked for, or the one the system chose for port 0).
    public let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    /// Listens on `host`:`port`, answering `routes`.
    /// - Throws: `MetricsEndpointError` when the port is in use or cannot be bound.
    public static func start(
        host: String,
        port: Int,
        routes: [String: PlainHTTPResponder.Route]
    ) throws(MetricsEndpointError) -> MetricsEndpoint {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try PlainHTTPResponder.bootstrap(group: group, routes: routes)
                .bind(host: host, port: port).wait()
            return MetricsEndpoint(port: channel.localAddress?.port ?? port, group: group, channel: channel)
        } catch {
            try? group.syncShutdownGracefully()
            if let error = error as? IOError, error.errnoCode == EADDRINUSE {
                throw MetricsEndpointError("\(host):\(port) is in use: choose another --metrics-port, or 0 for any")
            }
            throw MetricsEndpointError("cannot listen on \(host):\(port): \(error)")
        }
    }

    private init(port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.port = port
        self.group = group
        self.channel = channel
    }

    /// Stops listening and closes every scrape connection.
    public func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// A metrics listener that could not start, in words.
public struct MetricsEndpointError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
