import Foundation
import Pages
import Reports

/// `report.html` of a profile: the headline, the sender's cost and lag, its CPU, memory and
/// pushes over time, the mock's answers, and, when it failed, why with its last words.
struct ProfilePage {
    let context: RunContext
    let profile: ProfileFigures

    func render() -> String {
        let sender = profile.sender
        var html = """
            <h1>PushBench profile \(HTML.escape(context.runID))</h1>
            <div class="sub"><code>\(HTML.escape(sender.command))</code> · started \(HTML.escape(HTML.utc(profile.arrivals.startedAtUnix))) · \(String(format: "%.2f", profile.arrivals.durationSeconds)) s · stopped: \(HTML.escape(sender.stop))\(sender.exitStatus.map { ", exit status \($0)" } ?? "")</div>
            \(failure)
            \(HTML.headline(ProfileHeadline(profile).lines))
            <div class="cards">\(cards)</div>

            """
        if let service = profile.service { html += ServiceSection(service: service).render() }
        html += overTimeCharts
        html += StackProfileSection(sampling: context.cpuSampling, pushes: profile.sender.pushes).render()
        html += eventsAndAnswers
        if let page = profile.trafficPage {
            html += "<p>What the mock saw of the traffic, and the sender doctor's findings: "
            html += "<a href=\"\(HTML.escape(page))\">\(HTML.escape(page))</a>.</p>"
        }
        return HTML.page(title: "PushBench profile \(context.runID)", body: html)
    }

    /// Arrivals, CPU, lag and memory, second by second.
    private var overTimeCharts: String {
        var html = ""
        html += "<h2>Over time</h2>"
        html += chart(
            "Pushes the mock received and accepted per second",
            "pushes/s",
            [
                ("received/s", "#0a66c2", \.pushesPerS), ("accepted/s", "#1a7f37", \.acceptedPerS),
            ]
        )
        html += chart(
            "CPU, percent of one core",
            "CPU %",
            [
                ("sender", "#c62828", \.cpuPercent), ("mock and measuring", "#6a737d", \.mockCPUPercent),
            ]
        )
        html += chart(
            "Lag behind the schedule of the pushes arriving each second",
            "ms",
            [
                ("p50", "#0a66c2", \.lagP50Ms), ("p99", "#c62828", \.lagP99Ms),
            ]
        )
        html += chart(
            "The sender's memory together",
            "MiB",
            [
                ("RSS", "#8250df", \.rssMebibytes)
            ]
        )
        return html
    }

    /// The events matched, missing, sent twice or matching none, and the mock's answers.
    private var eventsAndAnswers: String {
        var html = ""
        html += "<h2>Events and answers</h2>"
        html += HTML.table(
            "A push answers the event whose number it carries, else its token's next one",
            [
                ("events handed to the sender", "\(profile.events.total)"),
                ("answered by a push", "\(profile.events.received)"), ("missing", "\(profile.events.missing)"),
                ("duplicates (an event already accepted, sent again)", "\(profile.events.duplicates ?? 0)"),
                ("pushes matching no event", "\(profile.events.extra)"),
                ("pushes before their time (lag 0)", "\(profile.lag.early)"),
            ],
            headers: ("", "count")
        )
        html += HTML.table(
            "The mock's answers",
            [("200", "\(profile.arrivals.counts.succeeded)")]
                + profile.arrivals.rejectedByReason.sorted { $0.value > $1.value }.map { ($0.key, "\($0.value)") },
            headers: ("answer", "pushes")
        )
        return html
    }

    /// The figures a reader looks for first: a sender's speed, cost and lag; a service's
    /// registrations, API and fan-out; a lifecycle's kick-off, storm and first updates.
    private var cards: String {
        let sender = profile.sender
        let cost = [
            profile.processesMeasured ? HTML.card(String(format: "%.1f µs", sender.cpuUsPerPush), "CPU per push") : "",
            profile.processesMeasured ? HTML.card(ProfileHeadline.mebibytes(sender.peakRSSBytes), "peak memory") : "",
        ]
        guard let service = profile.service else {
            return
                ([HTML.card(String(format: "%.0f", sender.pushesPerS), "pushes per second")] + cost + [
                    HTML.card(String(format: "%.1f ms", profile.lag.p50Ms), "p50 lag"),
                    HTML.card(String(format: "%.1f ms", profile.lag.p99Ms), "p99 lag"),
                    HTML.card("\(profile.events.missing)", "events missing"),
                ]).joined()
        }
        if let lifecycle = service.lifecycle { return (LifecycleSection.cards(lifecycle) + cost).joined() }
        let last = service.fanout.all.lastMs
        return
            ([
                HTML.card(String(format: "%.0f", service.registrations?.perS ?? 0), "registrations per second"),
                HTML.card(String(format: "%.1f ms", service.api.latencyMs?.p99 ?? 0), "API p99"),
                HTML.card(last.map { String(format: "%.0f ms", $0.p50) } ?? "–", "fan-out to the last push, p50"),
                HTML.card(last.map { String(format: "%.0f ms", $0.p99) } ?? "–", "fan-out to the last push, p99"),
            ] + cost + [HTML.card("\(service.fanout.missing)", "pushes missing")]).joined()
    }

    private var failure: String {
        guard let failure = profile.sender.failure else { return "" }
        let tail = profile.stderrTail.map { HTML.escape($0) }.joined(separator: "<br>")
        return "<p class=\"failed\"><b>FAILED: \(HTML.escape(failure)).</b>"
            + (tail.isEmpty ? "" : "<br>Its last words on stderr:<br><code>\(tail)</code>") + "</p>"
    }

    private func chart(
        _ title: String,
        _ unit: String,
        _ lines: [(name: String, color: String, value: KeyPath<ProfileFigures.Row, Double>)]
    ) -> String {
        LineChart(
            title: title,
            xLabel: "seconds since the sender started",
            yLabel: unit,
            series: lines.map { line in
                LineChart.Series(
                    name: line.name,
                    color: line.color,
                    points: profile.rows.map { ($0.startS, $0[keyPath: line.value]) }
                )
            }
        ).render()
    }
}

extension ProfileFigures.Row {
    var rssMebibytes: Double { Double(rssBytes) / 1_048_576 }
}
