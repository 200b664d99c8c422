import Dispatch
import NIOCore
import NIOPosix
import Synchronization
import Transport

#if canImport(Glibc)
import Glibc
#endif

/// The mock on libnghttp2's server session and the system's OpenSSL, one epoll loop per thread
/// (`EventLoop`), each accepting from every listener: the same libraries PushBench's client uses,
/// at a C server's cost per request.
///
/// The admin port (`/stats`, `/metrics`, HTTP/1.1) is still served by SwiftNIO on a thread of
/// its own.
final class NGHTTP2MockEngine: MockEngine {
    /// How its loops' threads are named (`mock-loop-0`, ...).
    static let threadNamePrefix = "mock-loop-"
    let port: Int
    let channelPort: Int?
    let adminPort: Int?
    private let loops: [EventLoop]
    private let listeners: [Int32]
    private let admin: (group: MultiThreadedEventLoopGroup, channel: Channel)?
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
        // not SIGPIPE's end of the process (SwiftNIO ignores it the same way).
        signal(SIGPIPE, SIG_IGN)
        let configuration = serving.configuration
        var bound: [(Int32, MockServing.Listening)] = []
        do {
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
            admin = try configuration.adminPort.map { try Self.startAdmin(serving, port: $0) }
            adminPort = admin?.channel.localAddress?.port
            loops = try (0..<max(1, configuration.threads)).map { try EventLoop(index: $0) }
        } catch {
            for (descriptor, _) in bound { Glibc.close(descriptor) }
            throw error
        }
        listeners = bound.map(\.0)
        for loop in loops {
            for (descriptor, listening) in bound {
                loop.listen(on: descriptor) { loop, descriptor in
                    Self.accept(on: descriptor, loop: loop, serving: serving, listening: listening) { client in
                        ServerConnection(
                            descriptor: client.descriptor,
                            client: (client.address, client.port),
                            loop: loop,
                            serving: serving,
                            listening: listening,
                            tls: tls,
                            template: template
                        )
                    }
                }
            }
            loop.start(namePrefix: Self.threadNamePrefix)
        }
    }

    func waitUntilClosed() {
        closed.wait()
        closed.signal()
    }

    func shutdown() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            // Listening stops first, so a client that reconnects is refused rather than left
            // waiting in the queue of a listener nobody serves.
            for descriptor in listeners { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
            for loop in loops { loop.stop() }
            for descriptor in listeners { Glibc.close(descriptor) }
            if let admin {
                try? admin.channel.close().wait()
                try? admin.group.syncShutdownGracefully()
            }
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

    /// The admin listener on SwiftNIO, one thread (`NIOMockEngine.adminBootstrap`).
    private static func startAdmin(
        _ serving: MockServing,
        port: Int
    ) throws -> (group: MultiThreadedEventLoopGroup, channel: Channel) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try NIOMockEngine.adminBootstrap(serving, group: group)
                .bind(host: serving.configuration.host, port: port).wait()
            return (group, channel)
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            try? group.syncShutdownGracefully()
            throw MockAPNsStartError.addressInUse(host: serving.configuration.host, port: port)
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }
}
