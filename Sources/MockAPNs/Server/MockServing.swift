import Dispatch
import MockFaults
import Telemetry
import Wire

/// What every connection of a mock is served with: the configuration, the identity, the
/// counters, the checks and answers (one `PushResponder` per environment), the fault plan, the
/// connection limit, and the open connections a moment strikes.
///
/// The engine (`NGHTTP2MockEngine`) only moves bytes, TLS and HTTP/2 frames; everything a
/// request is judged and counted by is here, apart from any socket, so that it is tested and
/// fuzzed without one.
struct MockServing: Sendable {
    let configuration: MockAPNsConfiguration
    let identity: TLSIdentity
    let stats: MockStats
    let verifier: ProviderTokenVerifier
    /// The responder of the configuration's environment.
    let responder: PushResponder
    let faults: FaultInjector?
    /// The open connections, kept only when a fault plan strikes them all at a moment.
    let openConnections: OpenConnections?
    /// Admits connections up to `ConnectionLimits.maxConnections`.
    let gate: ConnectionGate
    /// Each environment's responder: the configuration's own, and one for each other environment
    /// an adopted listener plays (with channels of its own, as each of Apple's environments has).
    let responders: [MockAPNsConfiguration.Environment: PushResponder]

    init(_ configuration: MockAPNsConfiguration, identity: TLSIdentity, startNanos: UInt64) {
        self.configuration = configuration
        self.identity = identity
        stats = MockStats(lanes: max(1, configuration.threads))
        verifier = ProviderTokenVerifier(keys: configuration.keys)
        let faults =
            configuration.faults.isEmpty ? nil : FaultInjector(plan: configuration.faults, startNanos: startNanos)
        self.faults = faults
        openConnections = configuration.faults.incidents.contains(where: \.kind.isMoment) ? OpenConnections() : nil
        gate = ConnectionGate(limit: configuration.limits.maxConnections)
        var responders: [MockAPNsConfiguration.Environment: PushResponder] = [:]
        for environment in Set([configuration.environment] + configuration.adoptedListeners.map(\.tally.environment)) {
            var playing = configuration
            playing.environment = environment
            responders[environment] = Self.responder(playing, stats: stats, verifier: verifier, faults: faults)
        }
        self.responders = responders
        responder = responders[configuration.environment]!
    }

    /// What a listener serves: its API, the responder of its environment, and the tally of an
    /// adopted one.
    struct Listening: Sendable {
        var listener: ConnectionState.Listener
        var responder: PushResponder
        var tally: ListenerTally? = nil
    }

    /// What an adopted listener serves.
    func listening(_ adopted: AdoptedListener) -> Listening {
        Listening(
            listener: adopted.api == .push ? .apns : .channels,
            responder: responders[adopted.tally.environment]!,
            tally: adopted.tally
        )
    }

    /// A new connection's state, as the configuration sets its stream limits and fault counts.
    func connectionState(port: Int, client: String, serving listening: Listening) -> ConnectionState {
        ConnectionState(
            port: port,
            client: stats.clients.slot(of: client),
            listener: listening.listener,
            tally: listening.tally,
            streamsAfterToken: configuration.maxConcurrentStreams,
            raised: configuration.streamsBeforeToken >= configuration.maxConcurrentStreams,
            dropsAfterRejection: configuration.dropStreamsAfterRejection,
            goAwayAfter: configuration.faults.goAwayAfter,
            resetAfter: configuration.faults.resetAfter
        )
    }

    /// What the admin port answers, read fresh at each request: the counters as JSON (`/stats`)
    /// and in Prometheus' format (`/metrics`).
    var adminRoutes: [String: PlainHTTPExchange.Route] {
        let stats = stats
        let verifier = verifier
        return [
            "/stats": { ("application/json", stats.snapshot().json(providerTokenFullChecks: verifier.fullChecks)) },
            "/metrics": {
                let text = stats.snapshot().prometheusText(providerTokenFullChecks: verifier.fullChecks)
                return (PrometheusText.contentType, Array(text.utf8))
            },
        ]
    }

    /// Strikes every open connection at each of the fault plan's moments, on Dispatch's clock.
    func scheduleMoments(startNanos: UInt64) {
        guard let openConnections else { return }
        for incident in configuration.faults.incidents where incident.kind.isMoment {
            let at = DispatchTime(uptimeNanoseconds: startNanos + UInt64(max(0, incident.atSeconds) * 1e9))
            DispatchQueue.global().asyncAfter(deadline: at) { openConnections.strike(incident.kind) }
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
}
