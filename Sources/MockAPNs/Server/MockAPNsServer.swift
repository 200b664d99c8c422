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
    /// The server's counters.
    public let stats: MockStats
    /// Checks provider tokens, and counts how often it did so in full.
    public let verifier: ProviderTokenVerifier

    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel
    private let adminChannel: Channel?
    private let channelsChannel: Channel?
    /// Held for the whole of a shutdown, so a second caller returns only once it is over.
    private let stopped = Mutex(false)

    /// Binds and starts serving. Throws if the identity is unusable or the port is taken.
    public static func start(_ configuration: MockAPNsConfiguration) throws -> MockAPNsServer {
        let identity = try configuration.identity ?? TLSIdentity.makeSelfSigned()
        let sslContext: NIOSSLContext
        do {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMBytes(identity.certificatePEM).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: identity.privateKeyPEM, format: .pem))
            )
            tls.applicationProtocols = ["h2"]
            tls.minimumTLSVersion = .tlsv12
            sslContext = try NIOSSLContext(configuration: tls)
        } catch {
            throw MockAPNsStartError.unusableIdentity("\(error)")
        }

        let threads = max(1, configuration.threads)
        let stats = MockStats(lanes: threads)
        let verifier = ProviderTokenVerifier(keys: configuration.keys)
        let startNanos = DispatchTime.now().uptimeNanoseconds
        let faults =
            configuration.faults.isEmpty ? nil : FaultInjector(plan: configuration.faults, startNanos: startNanos)
        let moments = configuration.faults.incidents.filter(\.kind.isMoment)
        let openConnections = moments.isEmpty ? nil : OpenConnections()
        let responder = PushResponder(
            validator: PushRequestValidator(
                verifier: verifier,
                tokenHexLength: configuration.tokenHexLength,
                tokenHygiene: configuration.tokenHygiene,
                startedAt: configuration.clock(),
                tokenRules: configuration.tokenRules,
                unregisteredTokens: configuration.unregisteredTokens,
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
        let connectionConfiguration = Self.connectionConfiguration(configuration)
        let streamConfiguration = Self.streamConfiguration()

        let gate = ConnectionGate(limit: configuration.limits.maxConnections)

        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        for (index, loop) in group.makeIterator().enumerated() {
            try? loop.submit { MockStats.claimLane(index) }.wait()
        }
        // One bootstrap per listener: APNs' push API, and the broadcast channel management API.
        let bootstrap = { (listener: ConnectionState.Listener) in
            ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    stats.update { $0.connectionsAccepted += 1 }
                    guard gate.admit(channel, stats: stats) else { return channel.close() }
                    var handshakeTime = configuration.limits.handshakeTimeout
                    if let delay = faults?.handshakeDelayNanos(nowNanos: DispatchTime.now().uptimeNanoseconds),
                        delay > 0
                    {
                        Self.holdHandshake(of: channel, forNanos: delay, stats: stats)
                        handshakeTime = handshakeTime + .nanoseconds(Int64(delay))
                    }
                    let handshakeDeadline = Self.closeUnlessHandshaken(channel, within: handshakeTime, stats: stats)
                    let errors = ConnectionErrorCounter(stats: stats)
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                        // A client that stops reading is no longer read from either, so its unread
                        // answers cannot pile up in memory.
                        try channel.pipeline.syncOperations.addHandler(BackPressureHandler())
                        /// Adds the HTTP/2 handlers before `errors`, once the client is known to speak it.
                        func serveHTTP2(_ channel: Channel) -> EventLoopFuture<Void> {
                            stats.update { $0.connectionsOpen += 1 }
                            channel.closeFuture.whenComplete { _ in stats.update { $0.connectionsOpen -= 1 } }
                            let connection = NIOLoopBoundBox(
                                ConnectionState(
                                    port: channel.remoteAddress?.port ?? 0,
                                    client: channel.remoteAddress?.ipAddress ?? "",
                                    listener: listener,
                                    streamsAfterToken: configuration.maxConcurrentStreams,
                                    raised: configuration.streamsBeforeToken >= configuration.maxConcurrentStreams,
                                    dropsAfterRejection: configuration.dropStreamsAfterRejection,
                                    goAwayAfter: configuration.faults.goAwayAfter,
                                    resetAfter: configuration.faults.resetAfter
                                ),
                                eventLoop: channel.eventLoop
                            )
                            openConnections?.add(channel, state: connection)
                            return channel.eventLoop.makeCompletedFuture {
                                let http2 = NIOHTTP2Handler(
                                    mode: .server,
                                    connectionConfiguration: connectionConfiguration,
                                    streamConfiguration: streamConfiguration
                                )
                                let pushes = PushConnectionHandler(responder: responder, connection: connection.value)
                                try channel.pipeline.syncOperations.addHandlers(
                                    [http2, pushes],
                                    position: .before(errors)
                                )
                            }
                        }
                        let refuse = { (channel: Channel) in
                            stats.update { $0.connectionsRefusedWithoutH2 += 1 }
                            channel.close(promise: nil)
                        }
                        let negotiation = ApplicationProtocolNegotiationHandler { result, channel in
                            handshakeDeadline.cancel()
                            switch result {
                            case .negotiated("h2"):
                                return serveHTTP2(channel)
                            case .fallback:
                                let priorKnowledge = { (channel: Channel) in
                                    stats.update { $0.connectionsWithoutALPN += 1 }
                                    return serveHTTP2(channel)
                                }
                                return channel.eventLoop.makeCompletedFuture {
                                    try channel.pipeline.syncOperations.addHandler(
                                        HTTP2PrefaceCheck(serveHTTP2: priorKnowledge, refuse: refuse),
                                        position: .before(errors)
                                    )
                                }
                            default:
                                refuse(channel)
                                return channel.eventLoop.makeSucceededVoidFuture()
                            }
                        }
                        try channel.pipeline.syncOperations.addHandler(negotiation)
                        try channel.pipeline.syncOperations.addHandler(errors)
                    }
                }
        }
        for incident in moments {
            let delay = Int64(incident.atSeconds * 1e9) - Int64(DispatchTime.now().uptimeNanoseconds - startNanos)
            group.next().scheduleTask(in: .nanoseconds(max(0, delay))) {
                openConnections?.strike(incident.kind, stats: stats)
            }
        }
        do {
            let channel = try bootstrap(.apns).bind(host: configuration.host, port: configuration.port).wait()
            var bound = [channel]
            /// Binds another listener on `port`, closing those bound already if it cannot.
            func bindAlso(_ extra: ServerBootstrap, port: Int) throws -> Channel {
                do {
                    let extraChannel = try extra.bind(host: configuration.host, port: port).wait()
                    bound.append(extraChannel)
                    return extraChannel
                } catch let error as IOError where error.errnoCode == EADDRINUSE {
                    for channel in bound { try? channel.close().wait() }
                    throw MockAPNsStartError.addressInUse(host: configuration.host, port: port)
                }
            }
            let channelsChannel = try configuration.channelPort.map { try bindAlso(bootstrap(.channels), port: $0) }
            let adminChannel = try configuration.adminPort.map {
                try bindAlso(Self.adminBootstrap(group: group, stats: stats, verifier: verifier), port: $0)
            }
            return MockAPNsServer(
                port: channel.localAddress?.port ?? configuration.port,
                adminPort: adminChannel?.localAddress?.port,
                channelPort: channelsChannel?.localAddress?.port,
                certificatePEM: identity.certificatePEM,
                stats: stats,
                verifier: verifier,
                group: group,
                channel: channel,
                adminChannel: adminChannel,
                channelsChannel: channelsChannel
            )
        } catch let error as MockAPNsStartError {
            try? group.syncShutdownGracefully()
            throw error
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            try? group.syncShutdownGracefully()
            throw MockAPNsStartError.addressInUse(host: configuration.host, port: configuration.port)
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
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
        channelsChannel: Channel?
    ) {
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
            try? group.syncShutdownGracefully()
        }
    }

    /// Closes `channel` if its TLS handshake and ALPN have not finished `within` (half-open TLS, a
    /// client that connects and says nothing), counting it; the caller cancels the returned task
    /// once they have.
    private static func closeUnlessHandshaken(
        _ channel: Channel,
        within time: TimeAmount,
        stats: MockStats
    ) -> Scheduled<Void> {
        let deadline = channel.eventLoop.scheduleTask(in: time) {
            stats.update { $0.handshakesTimedOut += 1 }
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
        return deadline
    }

    /// A `slow_tls_accept` incident: the new connection reads nothing for `nanos`, so the client's
    /// ClientHello waits in the socket and its handshake takes that much longer.
    private static func holdHandshake(of channel: Channel, forNanos nanos: UInt64, stats: MockStats) {
        stats.update { $0.handshakesDelayed += 1 }
        _ = channel.setOption(ChannelOptions.autoRead, value: false)
        channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(nanos))) {
            _ = channel.setOption(ChannelOptions.autoRead, value: true)
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

    /// APNs' SETTINGS as last observed (`docs/apns.md` §1.8): header table 4096,
    /// initial window 65535, max frame 16384, max header list 8000, and one stream until the
    /// first valid provider token (`ConnectionState` raises it).
    private static func connectionConfiguration(
        _ configuration: MockAPNsConfiguration
    )
        -> NIOHTTP2Handler.ConnectionConfiguration
    {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            HTTP2Setting(parameter: .headerTableSize, value: 4096),
            HTTP2Setting(
                parameter: .maxConcurrentStreams,
                value: min(configuration.streamsBeforeToken, configuration.maxConcurrentStreams)
            ),
            HTTP2Setting(parameter: .initialWindowSize, value: 65535),
            HTTP2Setting(parameter: .maxFrameSize, value: 16384),
            HTTP2Setting(parameter: .maxHeaderListSize, value: ConnectionLimits.maxHeaderListBytes),
        ]
        return connection
    }

    /// libcurl 7.88 resets every stream after its response; NIO's default reset-flood limit (200
    /// per 30 s) would close a busy connection, so the mock allows a reset per stream at any rate
    /// a loopback client can reach.
    private static func streamConfiguration() -> NIOHTTP2Handler.StreamConfiguration {
        var stream = NIOHTTP2Handler.StreamConfiguration()
        stream.streamResetFrameRateLimit.maximumCount = 10_000_000
        stream.streamResetFrameRateLimit.windowLength = .seconds(1)
        return stream
    }
}

/// Why the mock could not start, in words a user can act on.
public enum MockAPNsStartError: Error, Equatable, CustomStringConvertible {
    case addressInUse(host: String, port: Int)
    case unusableIdentity(String)
    case unusableRecording(String)

    public var description: String {
        switch self {
        case .addressInUse(let host, let port): "port \(port) on \(host) is already in use"
        case .unusableIdentity(let detail):
            "the TLS certificate and key are not a usable PEM certificate chain and matching private key (\(detail))"
        case .unusableRecording(let detail): "cannot record traffic: \(detail)"
        }
    }
}
