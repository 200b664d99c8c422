import Foundation
import Pages
import Reports

/// The part of a service profile's page only a service has: its API's answers in both phases,
/// its fan-out by event kind, a chart of each call's fan-out over the run, and its slowest calls.
struct ServiceSection {
    let service: ServiceFigures

    /// Colours for the event kinds' lines, in the kinds' alphabetical order.
    private static let palette = ["#0a66c2", "#c62828", "#1a7f37", "#8250df", "#bf8700", "#6a737d", "#d63384"]

    /// The section's opening paragraph: which requests the service was sent.
    private func introduction() -> String {
        var html = "<h2>The service's API</h2><p>"
        if let registrations = service.registrations {
            html += "\(service.lifecycle == nil ? "Registrations" : "Push-to-start tokens"): "
            html += "<code>\(HTML.escape("\(registrations.method) \(registrations.url)"))</code>, "
            html += "one per \(service.lifecycle == nil ? "activity" : "device") before the clock. "
        }
        if service.api.hasRequest {
            html += "Events: <code>\(HTML.escape("\(service.api.method) \(service.api.url)"))"
            html +=
                "</code>, one per \(HTML.escape(service.api.per ?? "group")), open loop on the scenario's clock.</p>"
        } else {
            html += "No event calls: the service sends on its own clock what it was told (service_sends).</p>"
        }
        return html
    }

    func render() -> String {
        var html = introduction()
        html += HTML.grid(
            "Every request accounted for: sent = succeeded + refused + timed out + failed; latency from its intended time",
            headers: [
                "phase", "sent", "succeeded", "refused", "timed out", "failed", "per s", "p50 ms", "p99 ms", "max ms",
                "answers",
            ],
            rows: phases.map { name, phase in
                [
                    name, "\(phase.sent)", "\(phase.succeeded)", "\(phase.refused)",
                    "\(phase.timedOut)", "\(phase.failed)", String(format: "%.0f", phase.perS),
                    Self.ms(phase.latencyMs?.p50), Self.ms(phase.latencyMs?.p99), Self.ms(phase.latencyMs?.max),
                    Self.answers(phase),
                ]
            }
        )
        let fanout = service.fanout
        html += "<h2>Fan-out to the mock</h2>"
        html += "<p>Each call's pushes, matched \(fanout.matchedByTag) of \(fanout.matched) by the "
        html += "<code>pushbench_event</code> the service passed through in the content state and the rest by order: "
        html += "\(fanout.matched) of \(fanout.expectedPushes) arrived, \(fanout.missing) missing in "
        html += "\(fanout.all.incompleteCalls) of \(fanout.calls) calls, \(fanout.extra) extra. Times are "
        html += "milliseconds from the call's intended time to its first push, half of them, 99% and the last, "
        html += "as percentiles over the calls that got that far.</p>"
        let kinds = fanout.byKind.sorted { $0.key < $1.key }
        html += HTML.grid(
            "Fan-out by event kind (p50 / p99 over calls, ms)",
            headers: ["event", "calls", "incomplete", "first", "half", "99%", "last", "last max"],
            rows: (kinds + [("all", fanout.all)]).map { kind, figures in
                [
                    kind, "\(figures.calls)", "\(figures.incompleteCalls)", Self.pair(figures.firstMs),
                    Self.pair(figures.halfMs), Self.pair(figures.p99Ms), Self.pair(figures.lastMs),
                    Self.ms(figures.lastMs?.max),
                ]
            }
        )
        html += chart(kinds.map(\.key), "the last push", \.lastMs)
        html += chart(kinds.map(\.key), "99% of the pushes", \.p99Ms)
        html += HTML.grid(
            "The slowest calls: pushes missing first, then the latest to complete",
            headers: ["group", "event", "due s", "pushes", "arrived", "99% ms", "last ms"],
            rows: fanout.slowest.map { call in
                [
                    "\(call.group)", call.kind, String(format: "%.1f", call.dueS), "\(call.pushes)", "\(call.arrived)",
                    Self.ms(call.p99Ms), Self.ms(call.lastMs),
                ]
            }
        )
        if let lifecycle = service.lifecycle { html += LifecycleSection(lifecycle: lifecycle).render() }
        return html
    }

    /// Every phase of requests to the service, in the order they began.
    private var phases: [(String, RunSummary.APIPhase)] {
        let lifecycle = service.lifecycle
        let named: [(String, RunSummary.APIPhase?)] = [
            (lifecycle == nil ? "registrations" : "push-to-start tokens", service.registrations),
            ("starts", lifecycle?.starts), ("events", service.api), ("token reports", lifecycle?.storm.reports),
            ("closes", lifecycle?.closes), ("re-issued push-to-start tokens", lifecycle?.reissuedStartTokens),
        ]
        return named.compactMap { name, phase in phase.map { (name, $0) } }
    }

    /// Each call's fan-out to `milestone`, a line per event kind, over the run.
    private func chart(_ kinds: [String], _ milestone: String, _ value: KeyPath<ServiceFigures.Call, Double?>) -> String
    {
        LineChart(
            title: "Fan-out to \(milestone) of each call, by event kind",
            xLabel: "seconds since the first call",
            yLabel: "ms",
            series: kinds.enumerated().map { index, kind in
                LineChart.Series(
                    name: kind,
                    color: Self.palette[index % Self.palette.count],
                    points: service.calls.filter { $0.kind == kind }.compactMap { call in
                        call[keyPath: value].map { (call.dueS, $0) }
                    }
                )
            },
            emptyReason: "no call's fan-out reached \(milestone)"
        ).render()
    }

    static func ms(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "–" }

    static func pair(_ value: RunSummary.MillisecondPercentiles?) -> String {
        value.map { String(format: "%.0f / %.0f", $0.p50, $0.p99) } ?? "–"
    }

    static func answers(_ phase: RunSummary.APIPhase) -> String {
        let statuses = phase.byStatus.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        let failures = phase.failedByClass.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return (statuses + failures).joined(separator: ", ")
    }
}
