import Foundation
import Pages
import Reports

/// The part of a lifecycle profile's page about the devices PushBench played: the starts'
/// fan-out to push-to-start tokens, the registration storm over time, what became of each
/// activity, the pushes the devices dropped, and the emulation's own cost.
struct LifecycleSection {
    let lifecycle: RunSummary.Lifecycle

    /// The cards a lifecycle's page opens with: the kick-off's last start, the storm's peak and
    /// p99, the time to first update, and what never got there.
    static func cards(_ lifecycle: RunSummary.Lifecycle) -> [String] {
        let ms = { (value: Double?) in
            value.map { $0 >= 10_000 ? String(format: "%.1f s", $0 / 1000) : String(format: "%.0f ms", $0) } ?? "–"
        }
        let activities = lifecycle.activities
        return [
            HTML.card(ms(lifecycle.startFanout.all.lastMs?.p50), "last device started, p50 over calls"),
            HTML.card("\(lifecycle.storm.peakPerS)", "token reports offered a second, peak"),
            HTML.card("\(lifecycle.storm.peakAnsweredPerS ?? 0)", "token reports answered a second, peak"),
            HTML.card(ms(lifecycle.storm.reports.latencyMs?.p99), "token report p99"),
            HTML.card(ms(lifecycle.timeToFirstUpdateMs?.p99), "time to first update, p99"),
            HTML.card("\(activities.startedNeverUpdated + activities.neverStarted)", "activities never updated"),
            HTML.card("\(lifecycle.wastedPushes)", "pushes wasted on devices"),
        ]
    }

    func render() -> String {
        let fanout = lifecycle.startFanout
        var html = "<h2>The devices: starts, token reports, first updates</h2>"
        html += "<p>PushBench played every device behind the mock. A start push started an activity only when "
        html += "a device would show it (its <code>attributes-type</code>, attributes and content state as the "
        html += "app declares them, an alert, under the device's limit); the device then reported its update "
        html += "token after a delay. Pushes the devices dropped are counted by cause, whatever APNs answered.</p>"
        html += HTML.grid(
            "Start fan-out: when the start pushes that started an activity arrived, ms after each start call's intended time (p50 / p99 over calls)",
            headers: ["calls", "devices", "started", "first", "half", "99%", "last"],
            rows: [
                [
                    "\(fanout.calls)", "\(fanout.expectedPushes)", "\(fanout.matched)",
                    ServiceSection.pair(fanout.all.firstMs), ServiceSection.pair(fanout.all.halfMs),
                    ServiceSection.pair(fanout.all.p99Ms), ServiceSection.pair(fanout.all.lastMs),
                ]
            ]
        )
        html += stormChart() + outcomes()
        return html
    }

    /// Token reports sent each second.
    private func stormChart() -> String {
        LineChart(
            title: "The registration storm: token reports offered and answered each second",
            xLabel: "seconds since the clock's start",
            yLabel: "reports a second",
            series: [
                LineChart.Series(
                    name: "offered by the devices",
                    color: "#0a66c2",
                    points: lifecycle.storm.perSecond.enumerated().map { (Double($0), Double($1)) }
                ),
                LineChart.Series(
                    name: "answered by the service",
                    color: "#d9480f",
                    points: (lifecycle.storm.answeredPerSecond ?? []).enumerated().map { (Double($0), Double($1)) }
                ),
            ],
            emptyReason: "no device reported a token"
        ).render()
    }

    /// What became of the activities, the times, the causes, and the emulation's cost.
    private func outcomes() -> String {
        let activities = lifecycle.activities
        var html = HTML.grid(
            "What became of the activities",
            headers: [
                "expected", "started", "never started", "updated", "started, never updated", "dismissed", "rotated",
                "extra starts",
            ],
            rows: [
                [
                    "\(activities.expected)", "\(activities.started)", "\(activities.neverStarted)",
                    "\(activities.updated)", "\(activities.startedNeverUpdated)", "\(activities.dismissed)",
                    "\(activities.rotated)", "\(activities.extraStarts)",
                ]
            ]
        )
        html += HTML.grid(
            "Times, ms: from each activity's start to its token report's answer, and to its first update",
            headers: ["measure", "count", "p50", "p90", "p99", "max"],
            rows: [
                ("start to reported token", lifecycle.storm.startToReportMs),
                ("time to first update", lifecycle.timeToFirstUpdateMs),
            ].map { name, value in
                [
                    name, "\(value?.count ?? 0)", ServiceSection.ms(value?.p50), ServiceSection.ms(value?.p90),
                    ServiceSection.ms(value?.p99), ServiceSection.ms(value?.max),
                ]
            }
        )
        let causes = activities.neverUpdatedByCause.sorted { $0.key < $1.key }.map {
            ["never updated: \($0.key)", "\($0.value)"]
        }
        let wasted = lifecycle.wastedPushesByCause.sorted { $0.key < $1.key }.map {
            ["wasted push: \($0.key)", "\($0.value)"]
        }
        html += HTML.grid("Causes", headers: ["cause", "count"], rows: causes + wasted)
        html += "<p>"
        html += String(
            format: "PushBench's own CPU playing the devices: %.2f s over %d device events, %.1f µs each. ",
            lifecycle.emulation.cpuS,
            lifecycle.emulation.deviceEvents,
            lifecycle.emulation.cpuUsPerEvent ?? 0
        )
        if let phases = lifecycle.serviceCPUByPhaseS {
            html += String(
                format:
                    "The service's CPU: %.2f s in the starts, %.2f s in the registration storm, %.2f s on the updates. ",
                phases["start"] ?? 0,
                phases["registration_storm"] ?? 0,
                phases["updates"] ?? 0
            )
        }
        html += "Devices as played: "
        html += lifecycle.devices.sorted { $0.key < $1.key }.map { "\(HTML.escape($0.key)) \(HTML.escape($0.value))" }
            .joined(separator: "; ")
        html += ".</p>"
        return html
    }
}
