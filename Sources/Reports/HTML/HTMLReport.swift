import Basics
import Budget
import BudgetReports
import Foundation
import Histogram
import LoadEngine
import Pages
import Transport

/// `report.html`: one self-contained page (inline CSS and SVG, nothing fetched) that a person
/// reads after a run: headline figures, the books, latency over time and its percentile
/// spectrum, rejection reasons, connections, and the run's parameters.
public struct HTMLReport {
    /// The run.
    public let result: RunResult
    /// Where and how it ran.
    public let context: RunContext
    /// What the devices would have shown of the accepted pushes, if modelled.
    public let budget: BudgetReport?
    /// The run judged against a baseline (`--baseline`), if one was given.
    public let comparison: (any ReportSection)?

    /// Creates a report.
    public init(
        result: RunResult,
        context: RunContext,
        budget: BudgetReport? = nil,
        comparison: (any ReportSection)? = nil
    ) {
        self.result = result
        self.context = context
        self.budget = budget
        self.comparison = comparison
    }

    /// The page.
    public func render() -> String {
        var html = topSection()
        if let comparison { html += comparison.html }
        html += practiceSection()
        html += outcomesSection()
        html += broadcastSection()
        html += overTimeSection()
        html += spectrumSection()
        html += StackProfileSection(sampling: context.cpuSampling, pushes: result.counts.sent).render()
        html += connectionsSection()
        html += senderSection()
        if let budget { html += budget.embeddedHTML }
        html += parametersSection()
        return HTML.page(title: "PushBench run \(context.runID)", body: html)
    }

    /// `micros` in milliseconds, or "none" when no request was answered.
    private func ms(_ micros: UInt64?) -> String {
        result.latency.totalCount > 0 ? String(format: "%.2f ms", Double(micros ?? 0) / 1000) : "none"
    }

    /// The title, any failure, the headline and the cards.
    private func topSection() -> String {
        let latency = RunSummary.Percentiles(result.latency)
        let failure = RunFailure(result).map { failure in
            "<p class=\"failed\"><b>FAILED: \(HTML.escape(failure.headline)).</b>"
                + (failure.connections.map { "<br>\(HTML.escape($0))." } ?? "")
                + (failure.sample.map { "<br>\(HTML.escape($0))" } ?? "")
                + (failure.hint.map { "<br>Hint: \(HTML.escape($0))" + ($0.hasSuffix("?") ? "" : ".") } ?? "") + "</p>"
        }
        return """
            <h1>PushBench run \(HTML.escape(context.runID))</h1>
            <div class="sub">\(HTML.escape(context.targetDescription)) · \(HTML.escape(result.mode.rawValue.replacingOccurrences(of: "_", with: " "))) · started \(HTML.escape(HTML.utc(result.startedAtUnix))) · \(String(format: "%.2f", result.durationSeconds)) s\(result.interrupted ? " · <b class=\"bad\">interrupted</b>" : "")</div>
            \(failure ?? "")
            \(headline)
            <div class="cards">
            <div class="card"><b>\(String(format: "%.0f", result.successesPerSecond))</b><span>successes per second</span></div>
            <div class="card"><b>\(String(format: "%.0f", result.throughputPerSecond))</b><span>attempts per second</span></div>
            <div class="card"><b>\(ms(latency.p50))</b><span>p50 latency</span></div>
            <div class="card"><b>\(ms(latency.p99))</b><span>p99 latency</span></div>
            <div class="card"><b>\(ms(latency.p99_9))</b><span>p99.9 latency</span></div>
            <div class="card"><b>\(ms(latency.max))</b><span>max latency</span></div>
            <div class="card"><b>\(String(format: "%.1f µs", result.engineCPUMicrosPerRequest))</b><span>engine CPU per request</span></div>
            </div>

            """
    }

    /// The outcomes, whether the books balance, and rejections and failures by kind.
    private func outcomesSection() -> String {
        let counts = result.counts
        var html = ""
        html += "<h2>Outcomes</h2>"
        html += HTML.table(
            "Every request ends in exactly one outcome",
            [
                ("sent", "\(counts.sent)"), ("succeeded (200)", "\(counts.succeeded)"),
                ("rejected (HTTP error)", "\(counts.rejected)"), ("errored (transport)", "\(counts.errored)"),
                ("timed out", "\(counts.timedOut)"),
            ],
            headers: ("outcome", "requests")
        )
        html +=
            counts.isBalanced
            ? "<p>sent = succeeded + rejected + errored + timed out: the books balance.</p>"
            : "<p class=\"bad\">The books do not balance: \(counts.sent) sent, \(counts.completed) ended.</p>"
        if let server = context.serverCounts {
            let check = ServerCheck(result: result, server: server)
            html +=
                check.matches
                ? "<p class=\"ok\">The mock's own count agrees: \(server.pushes) answered, \(server.accepted) accepted.</p>"
                : "<p class=\"bad\">The mock's count differs: \(HTML.escape(check.differences.joined(separator: "; "))).</p>"
        }
        html += HTML.table(
            "Rejections by reason",
            result.rejectedByReason.sorted { $0.value > $1.value }.map { ($0.key, "\($0.value)") },
            headers: ("reason", "requests")
        )
        html += HTML.table(
            "Transport failures by class, with one message of each",
            result.failureClasses.map {
                (
                    $0.rawValue + (result.erroredSamples[$0.rawValue].map { ": \($0)" } ?? ""),
                    "\(result.erroredByKind[$0.rawValue] ?? 0)"
                )
            },
            headers: ("failure", "requests")
        )
        return html
    }

    /// Throughput and latency over time, with any outages shaded.
    private func overTimeSection() -> String {
        var html = ""
        html += "<h2>Over time</h2>"
        html += "<p class=\"sub\">\(result.timeline.count) intervals of \(Self.span(result.timelineResolutionSeconds)) "
        html += "each, the resolution this run's length calls for; each interval's percentiles come from its own "
        html += "histogram.</p>"
        let outages = result.outages
        let bands = outages.map { (from: $0.fromSeconds, to: $0.toSeconds, label: "outage") }
        let ended = result.counts.completed > 0 ? result.timeline : []
        let offered = OfferedRate.perSecond(
            result.configuration,
            resolutionSeconds: result.timelineResolutionSeconds,
            intervals: ended.count
        )
        html += throughputChart(ended, offered: offered, bands: bands)
        html += offeredNote(offered != nil)
        html += outagesNote(outages)
        let answered = result.timeline.filter { $0.p50Us > 0 }
        html += LineChart(
            title: "Latency per interval (answered requests)",
            xLabel: "seconds since start",
            yLabel: "ms",
            series: [
                .init(
                    name: "p50",
                    color: "#1a7f37",
                    points: answered.map { ($0.startSeconds, Double($0.p50Us) / 1000) }
                ),
                .init(
                    name: "p99",
                    color: "#c62828",
                    points: answered.map { ($0.startSeconds, Double($0.p99Us) / 1000) }
                ),
            ],
            emptyReason: "no request was answered, so there is no latency to plot"
        ).render()

        return html
    }

    /// Requests completed and succeeded a second, beside the offered rate when the schedule has one.
    private func throughputChart(
        _ ended: [TimelineSample],
        offered: [Double]?,
        bands: [(from: Double, to: Double, label: String)]
    ) -> String {
        LineChart(
            title: offered == nil
                ? "Completed and succeeded requests per second"
                : "Offered, completed and succeeded requests per second",
            xLabel: "seconds since start",
            yLabel: "requests/s",
            series: (offered.map { rates in
                [.init(name: "offered/s", color: "#9e9e9e", points: zip(ended, rates).map { ($0.startSeconds, $1) })]
            } ?? []) + [
                .init(
                    name: "completed/s",
                    color: "#0a66c2",
                    points: ended.map { ($0.startSeconds, $0.completedPerSecond) }
                ),
                .init(
                    name: "succeeded/s",
                    color: "#1a7f37",
                    points: ended.map { ($0.startSeconds, $0.succeededPerSecond) }
                ),
            ],
            bands: bands,
            emptyReason: "no request ended, so there is no throughput to plot"
        ).render()
    }

    /// What the offered line is, or why an open loop has none.
    private func offeredNote(_ drawn: Bool) -> String {
        if drawn {
            return "<p class=\"sub\">Offered: the pushes the schedule intended in each interval, per second "
                + "(\(HTML.escape(result.configuration.pacing.label))). Completed below offered is a sender, or a "
                + "target, that fell behind it.</p>"
        }
        switch result.configuration.pacing {
        case .burst:
            return "<p class=\"sub\">Offered: every push of the burst was due at 0 s.</p>"
        case .scenarioTime:
            return "<p class=\"sub\">The offered rate is not drawn: the scenario holds more than "
                + "\(OfferedRate.mostScenarioPushes) pushes to walk for their due times.</p>"
        default:
            return ""
        }
    }

    /// How long the target answered nothing, and when; empty without an outage.
    private func outagesNote(_ outages: [Outage]) -> String {
        guard !outages.isEmpty else { return "" }
        return
            "<p class=\"bad\">The target answered nothing for \(String(format: "%.2f", outages.map(\.seconds).reduce(0, +))) s (shaded): every request that ended then failed below HTTP or timed out.</p>"
            + HTML.table(
                "Outages",
                outages.map {
                    (
                        String(format: "%.2f s to %.2f s", $0.fromSeconds, $0.toSeconds),
                        "\($0.errored) errored, \($0.timedOut) timed out"
                    )
                },
                headers: ("seconds since start", "requests")
            )
    }

    /// The percentile spectrum, chart and table.
    private func spectrumSection() -> String {
        let latency = RunSummary.Percentiles(result.latency)
        var html = ""
        html += "<h2>Latency percentile spectrum</h2>"
        html +=
            "<p class=\"sub\">\(HTML.escape(result.latencyOrigin.prefix(1).uppercased() + result.latencyOrigin.dropFirst())) "
        html += "to its last response byte. The x axis is "
        html += "log<sub>10</sub>(1/(1−p)), as HdrHistogram plots it, so the tail gets the room.</p>"
        html += spectrumChart()
        html += HTML.table(
            "Latency percentiles",
            [
                ("p50", latency.p50), ("p90", latency.p90), ("p95", latency.p95), ("p99", latency.p99),
                ("p99.9", latency.p99_9), ("max", latency.max),
            ].map { ($0.0, ms($0.1)) },
            headers: ("percentile", "latency")
        )

        return html
    }

    /// Answered requests per connection, and recoveries.
    private func connectionsSection() -> String {
        var html = ""
        html += "<h2>Connections</h2>"
        let sharded = result.perConnection.keys.contains { RunResult.connection(ofKey: $0).shard > 0 }
        if let recoveries = result.recoveries {
            html += "<p class=\"sub\">\(recoveries.reconnections) reopened after a failure or GOAWAY; "
            html += "\(recoveries.resentRefused) pushes the server refused unprocessed were sent again.</p>"
        }
        html += HTML.table(
            "Answered requests per HTTP/2 connection (by local port)",
            result.perConnection.sorted { $0.key < $1.key }.map {
                let connection = RunResult.connection(ofKey: $0.key)
                let name =
                    sharded ? "shard \(connection.shard), port \(connection.localPort)" : "port \(connection.localPort)"
                return (name, "\($0.value)")
            },
            headers: ("connection", "requests")
        )

        return html
    }

    /// Where the sender core spent its time.
    private func senderSection() -> String {
        var html = ""
        html += "<h2>The sender</h2>"
        html += "<p class=\"sub\">\(HTML.escape(GeneratorHealth.verdict(result))).</p>"
        html += HTML.table(
            "The sender core's CPU per push, by stage",
            GeneratorHealth.stageRows(result),
            headers: ("stage", "CPU per push")
        )
        html += "<p class=\"sub\">\(HTML.escape(GeneratorHealth.stageNote(result))).</p>"
        return html
    }

    /// The run's parameters and the machine.
    private func parametersSection() -> String {
        var html = ""
        let configuration = result.configuration
        let transport = configuration.transport
        html += "<h2>Parameters</h2>"
        html += HTML.table(
            "This run",
            [
                ("command", context.commandLine), ("target", transport.origin),
                ("scenario", "\(configuration.scenario.name), \(configuration.scenario.activities) activities"),
                ("pacing", configuration.pacing.label), ("threads", "\(configuration.threads)"),
                ("requests cap", configuration.requests.map(String.init) ?? "none (the whole scenario)"),
                ("transport", configuration.transportKind.rawValue), ("connections", "\(transport.connections)"),
                ("streams per connection", "\(transport.streamsPerConnection)"),
                ("request timeout", "\(transport.requestTimeout.inMilliseconds) ms"), ("topic", configuration.topic),
                (
                    "priority",
                    configuration.priorityOverride.map { "\($0) for every push" } ?? "per event, from the scenario"
                ),
                ("seed", "\(configuration.scenario.seed)"),
                ("provider tokens", configuration.tokenPolicy.rawValue),
                ("TLS verification", transport.verifyPeer ? "on" : "off"),
                ("engine CPU", String(format: "%.2f s", result.engineCPUSeconds)),
                ("apns-id echo mismatches", "\(result.apnsIDMismatches)"),
            ],
            headers: ("parameter", "value")
        )
        let machine = MachineDescription.current
        html += HTML.table(
            "The machine that wrote this report",
            [
                ("cores", "\(machine.cores)"),
                ("memory", String(format: "%.1f GiB", Double(machine.memoryBytes) / 1_073_741_824)),
                ("kernel", machine.kernel), ("arch", machine.arch), ("hostname", machine.hostname),
                ("libcurl", machine.libcurl),
            ],
            headers: ("environment", "value")
        )
        return html
    }

    /// The first screen: one sentence per question the run was for.
    private var headline: String {
        HTML.headline(RunHeadline(result, server: context.serverCounts, budget: budget).lines)
    }

    /// The broadcasts among the requests, the devices they reached and the channel requests
    /// around them, when the run broadcast (iOS 18 channels).
    private func broadcastSection() -> String {
        let books = result.broadcasts
        let channels = result.channels
        guard books.counts.sent > 0 || channels.requests > 0 else { return "" }
        func ms(_ micros: UInt64) -> String { String(format: "%.2f ms", Double(micros) / 1000) }
        let reach = books.deviceReach
        var html = "<h2>Broadcasts</h2>"
        html += "<p class=\"sub\">One broadcast reaches every device subscribed to its channel; the "
        html += "requests above count each broadcast once.</p>"
        html += HTML.table(
            "Broadcasts and their reach",
            [
                ("sent", "\(books.counts.sent)"), ("succeeded (200)", "\(books.counts.succeeded)"),
                ("rejected", "\(books.counts.rejected)"), ("errored", "\(books.counts.errored)"),
                ("timed out", "\(books.counts.timedOut)"), ("devices reached", "\(books.devicesReached)"),
                ("latency p50", ms(books.latency.valueAtPercentile(50))),
                ("latency p99", ms(books.latency.valueAtPercentile(99))),
            ],
            headers: ("figure", "value")
        )
        html += HTML.table(
            "Until APNs had accepted the update, per device reached (token pushes and broadcasts)",
            [
                ("50% of devices", ms(reach.valueAtPercentile(50))),
                ("99% of devices", ms(reach.valueAtPercentile(99))), ("all devices", ms(reach.max)),
            ],
            headers: ("devices", "within")
        )
        html += HTML.table(
            "Channel requests (before and after the run)",
            [("created", "\(channels.created)"), ("deleted", "\(channels.deleted)")]
                + channels.failedByReason.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") },
            headers: ("request", "count")
        )
        return html
    }

    private func spectrumChart() -> String {
        LineChart.spectrum(
            title: "Latency by percentile",
            yLabel: "ms",
            divisor: 1000,
            series: [("latency", "#6a1b9a", result.latency)]
        ).render()
    }

    /// A resolution as a reader says it: `10 ms`, `1 s`, `1 min`.
    static func span(_ seconds: Double) -> String {
        if seconds < 1 { return String(format: "%.0f ms", seconds * 1000) }
        if seconds < 60 { return String(format: "%g s", seconds) }
        return String(format: "%g min", seconds / 60)
    }
}
