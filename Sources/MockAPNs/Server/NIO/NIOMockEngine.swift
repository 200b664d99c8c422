import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Telemetry
import Wire

#if canImport(Glibc)
import Glibc
#endif

/// The mock on SwiftNIO: event loops, NIOSSL's TLS and NIOHTTP2's framing (`ConnectionPipeline`).
final class NIOMockEngine: MockEngine {
    let port: Int
    let channelPort: Int?
    let adminPort: Int?
    private let group: MultiThreadedEventLoopGroup
    private let channels: [Channel]
    /// Held for the whole of a shutdown, so a second caller returns only once it is over.
    private let stopped = Mutex(false)

    /// Binds every listener and starts serving; closes what it bound if one cannot be.
    init(_ serving: MockServing) throws {
        let pipeline = ConnectionPipeline(serving: serving, sslContext: try Self.sslContext(serving.identity))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, serving.configuration.threads))
        for (index, loop) in group.makeIterator().enumerated() {
            try? loop.submit { MockStats.claimLane(index) }.wait()
        }
        do {
            let bound = try Self.bind(serving, group: group, pipeline: pipeline)
            let adopted = try Self.adopt(serving, group: group, pipeline: pipeline)
            port = bound.apns.localAddress?.port ?? serving.configuration.port
            channelPort = bound.channels?.localAddress?.port
            adminPort = bound.admin?.localAddress?.port
            channels = [bound.apns] + [bound.channels, bound.admin].compactMap { $0 } + adopted
            self.group = group
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }

    func waitUntilClosed() {
        try? channels[0].closeFuture.wait()
    }

    func shutdown() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            for channel in channels { try? channel.close().wait() }
            try? group.syncShutdownGracefully()
        }
    }

    /// The server's TLS: the identity's chain and key, TLS 1.2 or later, ALPN `h2`.
    private static func sslContext(_ identity: TLSIdentity) throws -> NIOSSLContext {
        do {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMBytes(identity.certificatePEM).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: identity.privateKeyPEM, format: .pem))
            )
            tls.applicationProtocols = ["h2"]
            tls.minimumTLSVersion = .tlsv12
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw MockAPNsStartError.unusableIdentity("\(error)")
        }
    }

    /// Serves the adopted listeners, each with its environment's responder; closes them all
    /// (and nothing else) if one cannot be served.
    private static func adopt(
        _ serving: MockServing,
        group: MultiThreadedEventLoopGroup,
        pipeline: ConnectionPipeline
    ) throws -> [Channel] {
        var channels: [Channel] = []
        do {
            for adopted in serving.configuration.adoptedListeners {
                let bootstrap = pipeline.bootstrap(group: group, serving: serving.listening(adopted))
                channels.append(try bootstrap.withBoundSocket(adopted.descriptor).wait())
            }
        } catch {
            for channel in channels { try? channel.close().wait() }
            throw MockAPNsStartError.unusableListener("\(error)")
        }
        return channels
    }

    /// Binds APNs' push listener, and the channel management and admin listeners when asked for;
    /// if one cannot be bound, closes those bound already and says which port was taken.
    private static func bind(
        _ serving: MockServing,
        group: MultiThreadedEventLoopGroup,
        pipeline: ConnectionPipeline
    ) throws -> (apns: Channel, channels: Channel?, admin: Channel?) {
        let configuration = serving.configuration
        var bound: [Channel] = []
        func bind(_ bootstrap: ServerBootstrap, port: Int) throws -> Channel {
            do {
                let channel = try bootstrap.bind(host: configuration.host, port: port).wait()
                bound.append(channel)
                return channel
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                for channel in bound { try? channel.close().wait() }
                throw MockAPNsStartError.addressInUse(host: configuration.host, port: port)
            }
        }
        let apns = try bind(pipeline.bootstrap(group: group, listener: .apns), port: configuration.port)
        let channels = try configuration.channelPort.map {
            try bind(pipeline.bootstrap(group: group, listener: .channels), port: $0)
        }
        let admin = try configuration.adminPort.map { try bind(adminBootstrap(serving, group: group), port: $0) }
        return (apns, channels, admin)
    }

    /// The admin listener: plain HTTP/1.1 with keep-alive (`MockServing.adminRoutes`).
    private static func adminBootstrap(_ serving: MockServing, group: MultiThreadedEventLoopGroup) -> ServerBootstrap {
        PlainHTTPResponder.bootstrap(group: group, routes: serving.adminRoutes)
    }
}
