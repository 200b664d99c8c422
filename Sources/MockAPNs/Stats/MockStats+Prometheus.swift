import Wire

extension MockStats.Snapshot {
    /// The counters in Prometheus' text exposition format (version 0.0.4), as `GET /metrics` on
    /// the admin port serves them, so a dashboard can watch the mock while a sender runs.
    ///
    /// Every name starts `pushbench_mock_`; counters end `_total`. Answers per connection stay in
    /// `/stats` only: a label per client port would give Prometheus a series per connection.
    public func prometheusText(providerTokenFullChecks: Int) -> String {
        var text = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            text += "# HELP pushbench_mock_\(name) \(help)\n# TYPE pushbench_mock_\(name) \(type)\n"
            for sample in samples { text += "pushbench_mock_\(name)\(sample.labels) \(sample.value)\n" }
        }
        func labelled(_ label: String, _ counts: [String: Int]) -> [(labels: String, value: String)] {
            counts.sorted { $0.key < $1.key }.map { ("{\(label)=\"\(Self.escaped($0.key))\"}", String($0.value)) }
        }

        var answers = [(labels: #"{status="200",reason=""}"#, value: String(accepted))]
        for (reason, count) in rejectedByReason.sorted(by: { $0.key < $1.key }) {
            let status = APNsReason(rawValue: reason)?.status ?? 0
            answers.append(("{status=\"\(status)\",reason=\"\(Self.escaped(reason))\"}", String(count)))
        }
        metric("pushes_total", "counter", "Device pushes answered, by HTTP status and APNs reason.", answers)
        metric(
            "pushes_by_push_type_total",
            "counter",
            "Device pushes answered, by apns-push-type (absent, or invalid for an unknown type).",
            labelled("push_type", pushesByPushType)
        )
        metric(
            "pushes_by_priority_total",
            "counter",
            "Device pushes answered, by apns-priority (absent, or invalid for one APNs refuses).",
            labelled("priority", pushesByPriority)
        )
        metric(
            "faults_injected_total",
            "counter",
            "Answers the fault plan turned into errors, by reason.",
            labelled("reason", faultsInjected)
        )
        metric(
            "live_activity_would_drop_total",
            "counter",
            "Live Activity pushes whose content a device would drop, by problem.",
            labelled("problem", liveActivityWouldDrop)
        )
        metric(
            "accepted_irregular_total",
            "counter",
            "Pushes accepted although they differ from Apple's documentation, as APNs accepts them, by kind.",
            labelled("kind", acceptedIrregular)
        )
        metric(
            "channel_requests_total",
            "counter",
            "Channel management requests answered, by operation.",
            labelled("operation", channelRequests)
        )
        metric(
            "broadcast_rejected_total",
            "counter",
            "Broadcasts refused, by reason.",
            labelled("reason", broadcastRejectedByReason)
        )
        metric(
            "channel_requests_rejected_total",
            "counter",
            "Channel management requests refused, by reason.",
            labelled("reason", channelRequestsRejectedByReason)
        )
        metric(
            "connection_errors_total",
            "counter",
            "Errors that reached a connection, by kind: failed handshakes, protocol violations, vanished peers.",
            labelled("kind", connectionErrors)
        )
        for scalar in scalars(providerTokenFullChecks: providerTokenFullChecks) {
            metric(scalar.metric, scalar.type, scalar.help, [("", scalar.metricValue ?? String(scalar.value))])
        }
        return text
    }

    /// A label value as the format wants it: backslash, double quote and line feed escaped.
    private static func escaped(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }
}
