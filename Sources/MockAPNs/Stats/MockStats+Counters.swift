extension MockStats.Snapshot {
    /// A counter that is one number, with the names `/stats` and `/metrics` give it.
    struct Scalar {
        /// Its key in `/stats`.
        var key: String
        /// Its Prometheus name after `pushbench_mock_`.
        var metric: String
        /// `counter` or `gauge`.
        var type = "counter"
        /// What it counts, for Prometheus' HELP line.
        var help: String
        /// Its value in `/stats`.
        var value: Int
        /// Its value in `/metrics`, when the unit differs from `/stats`' (seconds for microseconds).
        var metricValue: Double?
    }

    /// Every single-number counter, in the order both forms list them.
    func scalars(providerTokenFullChecks: Int) -> [Scalar] {
        connectionScalars + faultScalars + unsentScalars + broadcastScalars
            + providerTokenScalars(fullChecks: providerTokenFullChecks)
    }

    /// Connections: accepted, refused and why, open now.
    private var connectionScalars: [Scalar] {
        [
            Scalar(
                key: "connections_accepted",
                metric: "connections_accepted_total",
                help: "TLS connections accepted.",
                value: connectionsAccepted
            ),
            Scalar(
                key: "connections_refused_without_h2",
                metric: "connections_refused_without_h2_total",
                help:
                    "Connections closed because the client neither negotiated h2 with ALPN nor opened with the HTTP/2 preface.",
                value: connectionsRefusedWithoutH2
            ),
            Scalar(
                key: "connections_h2_without_alpn",
                metric: "connections_h2_without_alpn_total",
                help:
                    "Connections that negotiated no protocol with ALPN and spoke HTTP/2 by prior knowledge, as APNs allows.",
                value: connectionsWithoutALPN
            ),
            Scalar(
                key: "connections_refused_over_limit",
                metric: "connections_refused_over_limit_total",
                help: "Connections closed as soon as accepted, because the connection limit was reached.",
                value: connectionsRefusedOverLimit
            ),
            Scalar(
                key: "handshakes_timed_out",
                metric: "handshakes_timed_out_total",
                help: "Connections closed for not finishing TLS and ALPN within the handshake timeout.",
                value: handshakesTimedOut
            ),
            Scalar(
                key: "connections_open",
                metric: "connections_open",
                type: "gauge",
                help: "HTTP/2 connections open now.",
                value: connectionsOpen
            ),
        ]
    }

    /// What the client and the fault plan did to streams, answers and connections.
    private var faultScalars: [Scalar] {
        [
            Scalar(
                key: "streams_reset_by_client",
                metric: "streams_reset_by_client_total",
                help: "Streams the client reset before the mock answered.",
                value: streamsResetByClient
            ),
            Scalar(
                key: "answers_stalled",
                metric: "answers_stalled_total",
                help: "Answers held by a stall.",
                value: answersStalled
            ),
            Scalar(
                key: "answers_withheld",
                metric: "answers_withheld_total",
                help: "Answers never sent, by a hang incident.",
                value: answersWithheld
            ),
            Scalar(
                key: "handshakes_delayed",
                metric: "handshakes_delayed_total",
                help: "Connections whose TLS handshake a slow_tls_accept incident held back.",
                value: handshakesDelayed
            ),
            Scalar(
                key: "goaways_sent",
                metric: "goaways_sent_total",
                help: "Connections sent GOAWAY by the fault plan.",
                value: goAwaysSent
            ),
            Scalar(
                key: "connection_resets",
                metric: "connection_resets_total",
                help: "Connections reset by the fault plan.",
                value: connectionResets
            ),
            Scalar(
                key: "injected_delay_us_total",
                metric: "injected_delay_seconds_total",
                help: "Delay the fault plan added to answers, in total.",
                value: injectedDelayMicros,
                metricValue: Double(injectedDelayMicros) / 1e6
            ),
        ]
    }

    /// Answers decided but never written: their stream or connection had closed first.
    private var unsentScalars: [Scalar] {
        [
            Scalar(
                key: "answers_unsent",
                metric: "answers_unsent_total",
                help: "Answers decided after their stream or connection had closed, never written.",
                value: answersUnsent
            ),
            Scalar(
                key: "push_answers_unsent",
                metric: "push_answers_unsent_total",
                help: "Answers to device pushes decided after their stream or connection had closed, never written.",
                value: pushAnswersUnsent
            ),
            Scalar(
                key: "accepted_unsent",
                metric: "accepted_unsent_total",
                help: "Device pushes accepted whose answer was never written, their stream or connection closed first.",
                value: acceptedUnsent
            ),
        ]
    }

    /// Broadcasts, their deliveries and the channels they go through.
    private var broadcastScalars: [Scalar] {
        [
            Scalar(
                key: "broadcasts",
                metric: "broadcasts_total",
                help: "Broadcasts answered, every status.",
                value: broadcasts
            ),
            Scalar(
                key: "broadcasts_accepted",
                metric: "broadcasts_accepted_total",
                help: "Broadcasts answered 200.",
                value: broadcastsAccepted
            ),
            Scalar(
                key: "broadcast_deliveries",
                metric: "broadcast_deliveries_total",
                help: "Devices the accepted broadcasts reached: the starts that subscribed, or the simulated ones.",
                value: broadcastDeliveries
            ),
            Scalar(
                key: "broadcast_last_delivery_us_total",
                metric: "broadcast_last_delivery_seconds_total",
                help: "From each accepted broadcast to its last subscriber having it (the fan-out model), in total.",
                value: broadcastLastDeliveryMicros,
                metricValue: Double(broadcastLastDeliveryMicros) / 1e6
            ),
            Scalar(
                key: "broadcast_last_delivery_us_max",
                metric: "broadcast_last_delivery_seconds_max",
                type: "gauge",
                help: "The longest time from an accepted broadcast to its last subscriber having it.",
                value: broadcastLastDeliveryMicrosMax,
                metricValue: Double(broadcastLastDeliveryMicrosMax) / 1e6
            ),
            Scalar(
                key: "channels_created",
                metric: "channels_created_total",
                help: "Broadcast channels created.",
                value: channelsCreated
            ),
            Scalar(
                key: "channels_open",
                metric: "channels_open",
                type: "gauge",
                help: "Broadcast channels held now.",
                value: channelsCreated - channelsDeleted
            ),
        ]
    }

    /// Provider tokens checked in full, and adopted.
    private func providerTokenScalars(fullChecks providerTokenFullChecks: Int) -> [Scalar] {
        [
            Scalar(
                key: "provider_token_full_checks",
                metric: "provider_token_full_checks_total",
                help: "Provider tokens parsed and verified in full (cache misses).",
                value: providerTokenFullChecks
            ),
            Scalar(
                key: "provider_token_updates",
                metric: "provider_token_updates_total",
                help: "Provider tokens a connection adopted in place of the one it had.",
                value: providerTokenUpdates
            ),
        ]
    }
}
