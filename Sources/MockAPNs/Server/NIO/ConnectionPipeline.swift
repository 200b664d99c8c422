import Dispatch
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// What each accepted connection is given, in order: the connection limit, the handshake's
/// deadline (and a `slow_tls_accept` incident's hold), TLS, back-pressure, ALPN, then HTTP/2 and
/// the push handler once the client is known to speak it (by ALPN `h2`, or by the HTTP/2
/// preface from a client that offers no ALPN, as APNs serves it); anything else is refused.
struct ConnectionPipeline: Sendable {
    /// What every connection is served with, whichever engine.
    let serving: MockServing
    let sslContext: NIOSSLContext
    /// APNs' SETTINGS and the stream limits, the same for every connection.
    private let connectionConfiguration: NIOHTTP2Handler.ConnectionConfiguration
    private let streamConfiguration: NIOHTTP2Handler.StreamConfiguration

    private var configuration: MockAPNsConfiguration { serving.configuration }
    private var stats: MockStats { serving.stats }

    init(serving: MockServing, sslContext: NIOSSLContext) {
        self.serving = serving
        self.sslContext = sslContext
        connectionConfiguration = Self.connectionConfiguration(serving.configuration)
        streamConfiguration = Self.streamConfiguration()
    }

    typealias Listening = MockServing.Listening

    /// A listener's bootstrap: APNs' push API, or the broadcast channel management API.
    func bootstrap(group: MultiThreadedEventLoopGroup, listener: ConnectionState.Listener) -> ServerBootstrap {
        bootstrap(group: group, serving: Listening(listener: listener, responder: serving.responder))
    }

    /// A listener's bootstrap, serving as `serving` says.
    func bootstrap(group: MultiThreadedEventLoopGroup, serving: Listening) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in initialize(channel, serving: serving) }
    }

    /// Admits `channel`, or closes it over the connection limit, and sets up its TLS and ALPN.
    private func initialize(_ channel: Channel, serving listener: Listening) -> EventLoopFuture<Void> {
        stats.update { $0.connectionsAccepted += 1 }
        listener.tally?.update { $0.connections += 1 }
        guard serving.gate.admit(stats: stats) else { return channel.close() }
        channel.closeFuture.whenComplete { [gate = serving.gate] _ in gate.release() }
        var handshakeTime = configuration.limits.handshakeTimeout
        if let delay = serving.faults?.handshakeDelayNanos(nowNanos: DispatchTime.now().uptimeNanoseconds), delay > 0 {
            holdHandshake(of: channel, forNanos: delay)
            handshakeTime = handshakeTime + .nanoseconds(Int64(delay))
        }
        let handshakeDeadline = closeUnlessHandshaken(channel, within: handshakeTime)
        let errors = ConnectionErrorCounter(stats: stats)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
            // A client that stops reading is no longer read from either, so its unread answers
            // cannot pile up in memory.
            try channel.pipeline.syncOperations.addHandler(BackPressureHandler())
            try channel.pipeline.syncOperations.addHandler(
                negotiation(listener: listener, before: errors, handshakeDeadline: handshakeDeadline)
            )
            try channel.pipeline.syncOperations.addHandler(errors)
        }
    }

    /// Serves HTTP/2 on a client that negotiated `h2`, checks the preface of one that offered no
    /// ALPN, and refuses any other protocol.
    private func negotiation(
        listener: Listening,
        before errors: ConnectionErrorCounter,
        handshakeDeadline: Scheduled<Void>
    ) -> ApplicationProtocolNegotiationHandler {
        let refuse = { [stats] (channel: Channel) in
            stats.update { $0.connectionsRefusedWithoutH2 += 1 }
            channel.close(promise: nil)
        }
        return ApplicationProtocolNegotiationHandler { result, channel in
            handshakeDeadline.cancel()
            switch result {
            case .negotiated("h2"):
                return serveHTTP2(channel, listener: listener, before: errors)
            case .fallback:
                let priorKnowledge = { (channel: Channel) in
                    stats.update { $0.connectionsWithoutALPN += 1 }
                    return serveHTTP2(channel, listener: listener, before: errors)
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
    }

    /// Adds the HTTP/2 handlers before `errors`, once the client is known to speak it.
    private func serveHTTP2(
        _ channel: Channel,
        listener: Listening,
        before errors: ConnectionErrorCounter
    ) -> EventLoopFuture<Void> {
        stats.update { $0.connectionsOpen += 1 }
        listener.tally?.update { $0.handshaken += 1 }
        channel.closeFuture.whenComplete { [stats] _ in stats.update { $0.connectionsOpen -= 1 } }
        let connection = NIOLoopBoundBox(
            serving.connectionState(
                port: channel.remoteAddress?.port ?? 0,
                client: channel.remoteAddress?.ipAddress ?? "",
                serving: listener
            ),
            eventLoop: channel.eventLoop
        )
        let control = ChannelControl(channel)
        if let openConnections = serving.openConnections {
            let key = ObjectIdentifier(channel)
            openConnections.add(key) { [stats] kind in
                channel.eventLoop.execute {
                    OpenConnections.apply(kind, to: connection.value, control: control, stats: stats)
                }
            }
            channel.closeFuture.whenComplete { _ in openConnections.remove(key) }
        }
        return channel.eventLoop.makeCompletedFuture {
            let http2 = NIOHTTP2Handler(
                mode: .server,
                connectionConfiguration: connectionConfiguration,
                streamConfiguration: streamConfiguration
            )
            let pushes = PushConnectionHandler(
                responder: listener.responder,
                connection: connection.value,
                control: control
            )
            try channel.pipeline.syncOperations.addHandlers([http2, pushes], position: .before(errors))
        }
    }

    /// Closes `channel` if its TLS handshake and ALPN have not finished `within` (half-open TLS, a
    /// client that connects and says nothing), counting it; the caller cancels the returned task
    /// once they have.
    private func closeUnlessHandshaken(_ channel: Channel, within time: TimeAmount) -> Scheduled<Void> {
        let deadline = channel.eventLoop.scheduleTask(in: time) { [stats] in
            stats.update { $0.handshakesTimedOut += 1 }
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
        return deadline
    }

    /// A `slow_tls_accept` incident: the new connection reads nothing for `nanos`, so the client's
    /// ClientHello waits in the socket and its handshake takes that much longer.
    private func holdHandshake(of channel: Channel, forNanos nanos: UInt64) {
        stats.update { $0.handshakesDelayed += 1 }
        _ = channel.setOption(ChannelOptions.autoRead, value: false)
        channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(nanos))) {
            _ = channel.setOption(ChannelOptions.autoRead, value: true)
        }
    }

    /// APNs' SETTINGS as last observed (`docs/apns.md` §1.8): header table 4096,
    /// initial window 65535, max frame 16384, max header list 8000, and one stream until the
    /// first valid provider token (`ConnectionState` raises it).
    private static func connectionConfiguration(
        _ configuration: MockAPNsConfiguration
    ) -> NIOHTTP2Handler.ConnectionConfiguration {
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
