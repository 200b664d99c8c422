import Dispatch
import EventLoops
import Synchronization
import Telemetry
import Transport

#if canImport(Glibc)
import Glibc
#endif

/// The mock on libnghttp2's server session and the system's OpenSSL, one epoll loop per thread
/// (`EventLoop`), each accepting from every listener: the same libraries PushBench's client uses,
/// at a C server's cost per request.
///
/// The admin port (`/stats`, `/metrics`, plain HTTP/1.1) is served from the same loops
/// (`PlainHTTPConnection`).
final class NGHTTP2MockEngine: Sendable {
    /// How its loops' threads are named (`mock-loop-0`, ...).
    static let threadNamePrefix = "mock-loop-"
    /// The bound ports: APNs' push listener, and the channel management and admin listeners
    /// when the configuration asks for them.
    let port: Int
    let channelPort: Int?
    let adminPort: Int?
    private let loops: [EventLoop]
    private let listeners: [Int32]
    /// Held for the whole of a shutdown, so a second caller returns only once it is over.
    private let stopped = Mutex(false)
    private let closed = DispatchSemaphore(value: 0)

    /// Binds every listener and starts the loops; closes what it bound if one cannot be.
    init(_ serving: MockServing) throws {
        let tls: TLSServerContext
        do {
            tls = try TLSServerContext(identity: serving.identity)
        } catch {
            throw MockAPNsStartError.unusableIdentity("\(error)")
        }
        let template = try SessionTemplate(serving.configuration)
        // OpenSSL writes to a socket whose client may have gone: that must be an error to handle,
        // not SIGPIPE's end of the process.
        signal(SIGPIPE, SIG_IGN)
        let configuration = serving.configuration
        var bound: [(Int32, MockServing.Listening)] = []
        var admin: Int32?
        do throws(ListenerError) {
            let apns = try ListeningSocket.bind(host: configuration.host, port: configuration.port)
            bound.append((apns, .init(listener: .apns, responder: serving.responder)))
            if let channelPort = configuration.channelPort {
                let channels = try ListeningSocket.bind(host: configuration.host, port: channelPort)
                bound.append((channels, .init(listener: .channels, responder: serving.responder)))
            }
            for adopted in configuration.adoptedListeners {
                try ListeningSocket.adopt(adopted.descriptor)
                bound.append((adopted.descriptor, serving.listening(adopted)))
            }
            port = ListeningSocket.localPort(of: bound[0].0)
            channelPort = configuration.channelPort.map { _ in ListeningSocket.localPort(of: bound[1].0) }
            admin = try configuration.adminPort.map { port throws(ListenerError) in
                try ListeningSocket.bind(host: configuration.host, port: port)
            }
            adminPort = admin.map { ListeningSocket.localPort(of: $0) }
            loops = try (0..<max(1, configuration.threads)).map { index throws(ListenerError) in
                try EventLoop(index: index)
            }
        } catch {
            for (descriptor, _) in bound { Glibc.close(descriptor) }
            if let admin { Glibc.close(admin) }
            throw MockAPNsStartError(error)
        }
        listeners = bound.map(\.0) + [admin].compactMap { $0 }
        for loop in loops {
            Self.serve(bound, admin: admin, on: loop, serving: serving, tls: tls, template: template)
            loop.start(namePrefix: Self.threadNamePrefix) { MockStats.claimLane($0) }
        }
    }

    /// Has `loop` accept from every listener: push and channel clients as `ServerConnection`s
    /// (`listening` says what each serves), admin clients as `PlainHTTPConnection`s.
    private static func serve(
        _ bound: [(Int32, MockServing.Listening)],
        admin: Int32?,
        on loop: EventLoop,
        serving: MockServing,
        tls: TLSServerContext,
        template: SessionTemplate
    ) {
        let answerFields = AnswerFields()
        for (descriptor, listening) in bound {
            loop.listen(on: descriptor) { loop, descriptor in
                accept(on: descriptor, loop: loop, serving: serving, listening: listening) { client in
                    ServerConnection(
                        descriptor: client.descriptor,
                        client: (client.address, client.port),
                        loop: loop,
                        answerFields: answerFields,
                        serving: serving,
                        listening: listening,
                        tls: tls,
                        template: template
                    )
                }
            }
        }
        if let admin { PlainHTTPConnection.serve(admin, on: loop, routes: serving.adminRoutes) }
    }

    /// Blocks until the engine has shut down.
    func waitUntilClosed() {
        closed.wait()
        closed.signal()
    }

    /// Stops listening and closes every connection and loop; returns once they are, whoever
    /// called first.
    func shutdown() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            // Listening stops first, so a client that reconnects is refused rather than left
            // waiting in the queue of a listener nobody serves.
            for descriptor in listeners { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
            for loop in loops { loop.stop() }
            for descriptor in listeners { Glibc.close(descriptor) }
            closed.signal()
        }
    }

    /// Accepts the clients waiting on `descriptor` (a bounded number, so other loops and
    /// connections get their turn), counts them, and serves those the connection limit admits.
    private static func accept(
        on descriptor: Int32,
        loop: EventLoop,
        serving: MockServing,
        listening: MockServing.Listening,
        connection: ((descriptor: Int32, address: String, port: Int)) -> ServerConnection
    ) {
        for _ in 0..<64 {
            guard let client = ListeningSocket.accept(on: descriptor) else { return }
            serving.stats.update { $0.connectionsAccepted += 1 }
            listening.tally?.update { $0.connections += 1 }
            guard serving.gate.admit(stats: serving.stats) else {
                Glibc.close(client.descriptor)
                continue
            }
            connection(client).start()
        }
    }
}
