import Telemetry
import Wire

extension MockStats.Snapshot {
    /// The counters in Prometheus' text exposition format, as `GET /metrics` on the admin port
    /// serves them, so a dashboard can watch the mock while a sender runs.
    ///
    /// Every name starts `pushbench_mock_`; counters end `_total`. Answers per connection stay in
    /// `/stats` only: a label per client port would give Prometheus a series per connection.
    public func prometheusText(providerTokenFullChecks: Int) -> String {
        var text = PrometheusText()
        func labelled(_ label: String, _ counts: [String: Int]) -> [PrometheusText.Sample] {
            counts.sorted { $0.key < $1.key }.map { .init([(label, $0.key)], $0.value) }
        }

        var answers = [PrometheusText.Sample([("status", "200"), ("reason", "")], accepted)]
        for (reason, count) in rejectedByReason.sorted(by: { $0.key < $1.key }) {
            let status = APNsReason(rawValue: reason)?.status ?? 0
            answers.append(.init([("status", String(status)), ("reason", reason)], count))
        }
        text.counter(
            "pushbench_mock_pushes_total",
            help: "Device pushes answered, by HTTP status and APNs reason.",
            answers
        )
        for family in labelledFamilies {
            text.counter("pushbench_mock_" + family.name, help: family.help, labelled(family.label, family.counts))
        }
        for scalar in scalars(providerTokenFullChecks: providerTokenFullChecks) {
            let sample = [PrometheusText.Sample([], scalar.metricValue ?? Double(scalar.value))]
            if scalar.type == "gauge" {
                text.gauge("pushbench_mock_" + scalar.metric, help: scalar.help, sample)
            } else {
                text.counter("pushbench_mock_" + scalar.metric, help: scalar.help, sample)
            }
        }
        return text.text
    }

    /// The counters kept by a label: their name after `pushbench_mock_`, help, label and counts.
    private var labelledFamilies: [(name: String, help: String, label: String, counts: [String: Int])] {
        [
            (
                "pushes_by_push_type_total",
                "Device pushes answered, by apns-push-type (absent, or invalid for an unknown type).",
                "push_type", pushesByPushType
            ),
            (
                "pushes_by_priority_total",
                "Device pushes answered, by apns-priority (absent, or invalid for one APNs refuses).",
                "priority", pushesByPriority
            ),
            (
                "faults_injected_total", "Answers the fault plan turned into errors, by reason.", "reason",
                faultsInjected
            ),
            (
                "live_activity_would_drop_total",
                "Live Activity pushes whose content a device would drop, by problem.",
                "problem", liveActivityWouldDrop
            ),
            (
                "accepted_irregular_total",
                "Pushes accepted although they differ from Apple's documentation, as APNs accepts them, by kind.",
                "kind", acceptedIrregular
            ),
            (
                "channel_requests_total", "Channel management requests answered, by operation.", "operation",
                channelRequests
            ),
            ("broadcast_rejected_total", "Broadcasts refused, by reason.", "reason", broadcastRejectedByReason),
            (
                "channel_requests_rejected_total",
                "Channel management requests refused, by reason.",
                "reason", channelRequestsRejectedByReason
            ),
            (
                "connection_errors_total",
                "Errors that reached a connection, by kind: failed handshakes, protocol violations, vanished peers.",
                "kind", connectionErrors
            ),
        ]
    }
}
