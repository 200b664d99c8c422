import Dispatch
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization
import Telemetry
import Wire

#if canImport(Glibc)
import Glibc
#endif

/// A protocol-accurate APNs endpoint on loopback: HTTP/2 over TLS 1.2+ with ALPN `h2` (or by
/// prior knowledge from a client that offers no ALPN, as APNs serves it), APNs' SETTINGS, and APNs' answers to device pushes (see `PushRequestValidator`).
///
/// `pushbench run` embeds one; `pushbench mock` runs one for curl, h2load or another team's
/// sender. `GET /stats` answers the server's counters as JSON, on the APNs listener itself and on
/// the admin port (plain HTTP/1.1, which also serves `GET /metrics` for Prometheus).
public final class MockAPNsServer: Sendable {
    /// The bound port.
    public let port: Int
    /// The admin listener's port, when it has one.
    public let adminPort: Int?
    /// The broadcast channel management listener's port, when it has one.
    public let channelPort: Int?
    /// The certificate clients must trust.
    public let certificatePEM: [UInt8]
    /// What arrived at each adopted listener, in the configuration's order.
    public let adopted: [ListenerTally]
    /// The server's counters.
    public let stats: MockStats
    /// Checks provider tokens, and counts how often it did so in full.
    public let verifier: ProviderTokenVerifier

    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel
    private let adminChannel: Channel?
    private let channelsChannel: Channel?
    private let adoptedChannels: [Channel]
    /// Held for the whole of a shutdown, so a second caller returns only once it is over.
    private let stopped = Mutex(false)

    /// How the mock's answering threads are named (SwiftNIO's event loops, `NIO-ELT-G-#N`): a
    /// profile reads their CPU apart from the rest of its process by this prefix. The mock is the
    /// only user of SwiftNIO's event loops in PushBench's process.
    public static let threadNamePrefix = "NIO-ELT-"

    /// Binds and starts serving. Throws if the identity is unusable or the port is taken.
    public static func start(_ configuration: MockAPNsConfiguration) throws -> MockAPNsServer {
        let identity = try configuration.identity ?? TLSIdentity.makeSelfSigned()
        let threads = max(1, configuration.threads)
        let stats = MockStats(lanes: threads)
        let verifier = ProviderTokenVerifier(keys: configuration.keys)
        let startNanos = DispatchTime.now().uptimeNanoseconds
        let faults =
            configuration.faults.isEmpty ? nil : FaultInjector(plan: configuration.faults, startNanos: startNanos)
        let moments = configuration.faults.incidents.filter(\.kind.isMoment)
        let pipeline = ConnectionPipeline(
            configuration: configuration,
            sslContext: try Self.sslContext(identity),
            stats: stats,
            responder: Self.responder(configuration, stats: stats, verifier: verifier, faults: faults),
            faults: faults,
            openConnections: moments.isEmpty ? nil : OpenConnections()
        )
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        for (index, loop) in group.makeIterator().enumerated() {
            try? loop.submit { MockStats.claimLane(index) }.wait()
        }
        for incident in moments {
            let delay = Int64(incident.atSeconds * 1e9) - Int64(DispatchTime.now().uptimeNanoseconds - startNanos)
            group.next().scheduleTask(in: .nanoseconds(max(0, delay))) {
                pipeline.openConnections?.strike(incident.kind, stats: stats)
            }
        }
        do {
            let listeners = try bind(configuration, group: group, pipeline: pipeline, verifier: verifier)
            let adopted = try adopt(
                configuration.adoptedListeners,
                group: group,
                pipeline: pipeline,
                responder: { Self.responder(with: $0, configuration, stats: stats, verifier: verifier, faults: faults) }
            )
            return MockAPNsServer(
                port: listeners.apns.localAddress?.port ?? configuration.port,
                adminPort: listeners.admin?.localAddress?.port,
                channelPort: listeners.channels?.localAddress?.port,
                certificatePEM: identity.certificatePEM,
                stats: stats,
                verifier: verifier,
                group: group,
                channel: listeners.apns,
                adminChannel: listeners.admin,
                channelsChannel: listeners.channels,
                adopted: adopted
            )
        } catch {
            try? group.syncShutdownGracefully()
            throw error
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

    /// What answers each push, as `configuration` describes APNs.
    private static func responder(
        _ configuration: MockAPNsConfiguration,
        stats: MockStats,
        verifier: ProviderTokenVerifier,
        faults: FaultInjector?
    ) -> PushResponder {
        PushResponder(
            validator: PushRequestValidator(
                verifier: verifier,
                tokenHexLength: configuration.tokenHexLength,
                tokenHygiene: configuration.tokenHygiene,
                startedAt: configuration.clock(),
                tokenRules: configuration.tokenRules,
                unregisteredTokens: configuration.unregisteredTokens,
                unregisteredSince: configuration.unregisteredSince,
                disallowedTopics: configuration.disallowedTopics,
                environment: configuration.environment
            ),
            stats: stats,
            clock: configuration.clock,
            environment: configuration.environment,
            recorder: configuration.recorder,
            faults: faults,
            strictLiveActivityContent: configuration.strictLiveActivityContent,
            channels: ChannelStore(
                limit: configuration.channelLimit,
                subscribersPerChannel: configuration.subscribersPerChannel,
                broadcastsPerSecond: configuration.channelBroadcastsPerSecond,
                fanout: configuration.broadcastFanout
            )
        )
    }

    /// The responder of `environment`: the pipeline's when it is the configuration's, another
    /// (with channels of its own, as each of Apple's environments has) otherwise.
    private static func responder(
        with environment: MockAPNsConfiguration.Environment,
        _ configuration: MockAPNsConfiguration,
        stats: MockStats,
        verifier: ProviderTokenVerifier,
        faults: FaultInjector?
    ) -> PushResponder {
        var configuration = configuration
        configuration.environment = environment
        return responder(configuration, stats: stats, verifier: verifier, faults: faults)
    }

    /// Serves the adopted listeners, each with its environment's responder; closes them all
    /// (and nothing else) if one cannot be served.
    private static func adopt(
        _ listeners: [AdoptedListener],
        group: MultiThreadedEventLoopGroup,
        pipeline: ConnectionPipeline,
        responder: (MockAPNsConfiguration.Environment) -> PushResponder
    ) throws -> (channels: [Channel], tallies: [ListenerTally]) {
        var responders = [pipeline.configuration.environment: pipeline.responder]
        var channels: [Channel] = []
        do {
            for adopted in listeners {
                let environment = adopted.tally.environment
                let served = responders[environment] ?? responder(environment)
                responders[environment] = served
                let listening = ConnectionPipeline.Listening(
                    listener: adopted.api == .push ? .apns : .channels,
                    responder: served,
                    tally: adopted.tally
                )
                channels.append(
                    try pipeline.bootstrap(group: group, serving: listening).withBoundSocket(adopted.descriptor).wait()
                )
            }
        } catch {
            for channel in channels { try? channel.close().wait() }
            throw MockAPNsStartError.unusableListener("\(error)")
        }
        return (channels, listeners.map(\.tally))
    }

    /// Binds APNs' push listener, and the channel management and admin listeners when asked for;
    /// if one cannot be bound, closes those bound already and says which port was taken.
    private static func bind(
        _ configuration: MockAPNsConfiguration,
        group: MultiThreadedEventLoopGroup,
        pipeline: ConnectionPipeline,
        verifier: ProviderTokenVerifier
    ) throws -> (apns: Channel, channels: Channel?, admin: Channel?) {
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
        let admin = try configuration.adminPort.map {
            try bind(Self.adminBootstrap(group: group, stats: pipeline.stats, verifier: verifier), port: $0)
        }
        return (apns, channels, admin)
    }

    private init(
        port: Int,
        adminPort: Int?,
        channelPort: Int?,
        certificatePEM: [UInt8],
        stats: MockStats,
        verifier: ProviderTokenVerifier,
        group: MultiThreadedEventLoopGroup,
        channel: Channel,
        adminChannel: Channel?,
        channelsChannel: Channel?,
        adopted: (channels: [Channel], tallies: [ListenerTally])
    ) {
        self.adopted = adopted.tallies
        self.adoptedChannels = adopted.channels
        self.channelPort = channelPort
        self.channelsChannel = channelsChannel
        self.port = port
        self.adminPort = adminPort
        self.adminChannel = adminChannel
        self.certificatePEM = certificatePEM
        self.stats = stats
        self.verifier = verifier
        self.group = group
        self.channel = channel
    }

    /// Blocks until the server has stopped, its threads included: a process that exits while
    /// another thread is still shutting the event loops down can crash on the way out.
    public func waitUntilClosed() throws {
        try channel.closeFuture.wait()
        shutdown()
    }

    /// Stops listening, closes every connection and its threads. Safe to call more than once
    /// and from several threads: every call returns once the first has finished.
    public func shutdown() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            try? channel.close().wait()
            try? adminChannel?.close().wait()
            try? channelsChannel?.close().wait()
            for channel in adoptedChannels { try? channel.close().wait() }
            try? group.syncShutdownGracefully()
        }
    }

    /// The admin listener: plain HTTP/1.1 with keep-alive, serving the counters read fresh at
    /// each request, as JSON (`/stats`) and in Prometheus' format (`/metrics`).
    private static func adminBootstrap(
        group: MultiThreadedEventLoopGroup,
        stats: MockStats,
        verifier: ProviderTokenVerifier
    ) -> ServerBootstrap {
        PlainHTTPResponder.bootstrap(
            group: group,
            routes: [
                "/stats": { ("application/json", stats.snapshot().json(providerTokenFullChecks: verifier.fullChecks)) },
                "/metrics": {
                    let text = stats.snapshot().prometheusText(providerTokenFullChecks: verifier.fullChecks)
                    return (PrometheusText.contentType, Array(text.utf8))
                },
            ]
        )
    }
}

/// Why the mock could not start, in words a user can act on.
public enum MockAPNsStartError: Error, Equatable, CustomStringConvertible {
    case addressInUse(host: String, port: Int)
    case unusableIdentity(String)
    case unusableRecording(String)
    case unusableListener(String)

    public var description: String {
        switch self {
        case .addressInUse(let host, let port): "port \(port) on \(host) is already in use"
        case .unusableIdentity(let detail):
            "the TLS certificate and key are not a usable PEM certificate chain and matching private key (\(detail))"
        case .unusableRecording(let detail): "cannot record traffic: \(detail)"
        case .unusableListener(let detail): "cannot serve a listening socket handed to the mock: \(detail)"
        }
    }
}
