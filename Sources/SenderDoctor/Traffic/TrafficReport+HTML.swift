import Foundation
import Pages

extension TrafficReport {
    /// The report as one self-contained page: headline figures, the arrival rate over time, the
    /// priority mix, refusals, Live Activity events and the per-token cadence.
    public func html() -> String {
        var body = cardsHTML
        if let practices { body += practices.htmlSection() }
        body += arrivalsHTML + mixHTML + cadenceHTML
        return HTML.page(title: "PushBench: traffic received", body: body)
    }

    /// The title and the headline figures.
    private var cardsHTML: String {
        let seconds = seconds
        let peak = seconds.map(\.pushes).max() ?? 0
        let mean = durationSeconds > 0 ? Double(records.count) / durationSeconds : Double(records.count)
        var body = "<h1>What the mock received</h1>\n"
        body += "<p class=\"sub\">From \(HTML.escape(source)): the server's side of a sender's traffic.</p>\n"
        body += "<div class=\"cards\">"
        body += HTML.card(records.count.formatted(), "pushes")
        body += HTML.card(percent(accepted) + "%", "accepted")
        body += HTML.card(tokens.formatted(), "device tokens")
        body += HTML.card(connections.formatted(), "connections")
        body += HTML.card(String(format: "%.1f s", durationSeconds), "first to last push")
        body += HTML.card(String(format: "%.0f/s", mean), "mean rate")
        body += HTML.card("\(peak.formatted())/s", "busiest second")
        body += "</div>\n"
        return body
    }

    /// Pushes received each second: accepted, refused, at priority 10.
    private var arrivalsHTML: String {
        let seconds = seconds
        var body = ""
        body += "<h2>Arrivals</h2>\n"
        body += LineChart(
            title: "Pushes received per second",
            xLabel: "seconds since the first push",
            yLabel: "pushes/s",
            series: [
                (\Second.accepted, "accepted", "#1a7f37"), (\Second.refused, "refused", "#c62828"),
                (\Second.priority10, "priority 10", "#0a66c2"),
            ].map { path, name, color in
                .init(
                    name: name,
                    color: color,
                    points: seconds.enumerated().map { (Double($0.offset), Double($0.element[keyPath: path])) }
                )
            }
        ).render()
        return body
    }

    /// The priority mix, refusals, irregular acceptances, broadcasts and Live Activity events.
    private var mixHTML: String {
        var body = ""
        body += "<h2>Priorities and refusals</h2>\n"
        body += HTML.grid(
            "Pushes by type and priority",
            headers: ["apns-push-type", "apns-priority", "pushes", "share"],
            rows: priorityMix.map {
                [$0.pushType, String($0.priority), $0.pushes.formatted(), percent($0.pushes) + "%"]
            }
        )
        body += HTML.grid(
            "Refused pushes",
            headers: ["status", "reason", "pushes", "share"],
            rows: refusals.map { [String($0.status), $0.reason, $0.pushes.formatted(), percent($0.pushes) + "%"] }
        )
        body += HTML.grid(
            "Accepted, not approved: answered 200, but irregular or dropped by the device",
            headers: ["counter", "kind", "pushes", "share"],
            rows: irregular.map { [$0.counter, $0.kind, $0.pushes.formatted(), percent($0.pushes) + "%"] }
        )
        if let broadcasts {
            body += HTML.grid(
                "Broadcasts (iOS 18 channels), counted by the mock: a recording holds device pushes only",
                headers: [
                    "answered", "accepted", "devices reached", "last subscriber, mean (ms)",
                    "last subscriber, max (ms)",
                ],
                rows: [
                    [
                        broadcasts.answered.formatted(), broadcasts.accepted.formatted(),
                        broadcasts.deliveries.formatted(),
                        String(format: "%.1f", broadcasts.meanLastDeliveryMs),
                        String(format: "%.1f", Double(broadcasts.lastDeliveryMicrosMax) / 1000),
                    ]
                ]
            )
        }
        body += HTML.grid(
            "Live Activity events",
            headers: ["event", "pushes", "share"],
            rows: events.map { [$0.event, $0.pushes.formatted(), percent($0.pushes) + "%"] }
        )
        return body
    }

    /// How often each device token was updated, and what that costs its budget.
    private var cadenceHTML: String {
        var body = ""
        let cadence = cadence
        body += "<h2>Per-token cadence</h2>\n"
        body += HTML.grid(
            "How often each device token was updated",
            headers: [
                "percentile", "gap between pushes (s)", "pushes per token", "priority-10 pushes per token per hour",
            ],
            rows: Self.cadencePercentiles.enumerated().map { index, level in
                ["p\(level.formatted())"]
                    + [cadence.gapSeconds[index], cadence.pushesPerToken[index], cadence.priority10PerHour[index]].map {
                        String(format: "%.2f", $0)
                    }
            }
        )
        body += "<p class=\"note\">iOS spends an hourly budget on priority-10 Live Activity updates and drops "
        body += "the rest silently while APNs answers 200: the last column is what a device's budget pays. "
        body += "<code>pushbench budget --traffic</code> runs the accepted pushes through the budget model.</p>\n"
        return body
    }
}
