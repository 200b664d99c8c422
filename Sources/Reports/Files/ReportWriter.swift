import Budget
import BudgetReports
import Foundation
import Histogram
import LoadEngine
import Pages

/// Writes a run's report folder: `summary.json`, `latency_percentiles.csv`, `latency.hgrm`,
/// `timeseries.csv`, `outcomes.csv`, `connections.csv` and `report.html`, and the budget files
/// when the run fed the budget model. A profile's (`write(profile:)`, in `ProfileReports`) has
/// `lag_percentiles.csv` and `lag.hgrm` instead of the latency files, and its own timeseries and
/// page. A sampled sender's (`--perf`) has its stacks in `stacks.folded`.
public enum ReportWriter {
    /// The files written, for the closing message.
    public struct Written: Sendable {
        /// The report folder.
        public let directory: String
        /// The HTML report's path.
        public let htmlPath: String
        /// What `summary.json` says, with the verdicts of the context's judge.
        public let summary: RunSummary

        /// The files written into `directory`, its page at `htmlPath`, saying `summary`.
        package init(directory: String, htmlPath: String, summary: RunSummary) {
            self.directory = directory
            self.htmlPath = htmlPath
            self.summary = summary
        }
    }

    /// Writes the report for `result` into `<root>/<runID>/`, with `budget`'s files and section
    /// when given (its run ID must be the context's), and `comparison`'s section when given.
    ///
    /// - Throws: `ReportError` naming the file and the system's reason (full disk, no
    ///   permission); files already written stay.
    public static func write(
        _ result: RunResult,
        context: RunContext,
        root: String,
        budget: BudgetReport? = nil,
        comparison: (any ReportSection)? = nil
    ) throws -> Written {
        try write(
            result,
            context: context,
            directory: (root as NSString).appendingPathComponent(context.runID),
            budget: budget,
            comparison: comparison
        )
    }

    /// Writes the report for `result` into `directory` itself (`pushbench merge -o DIR`).
    ///
    /// - Throws: `ReportError` naming the file and the system's reason.
    public static func write(
        _ result: RunResult,
        context: RunContext,
        directory: String,
        budget: BudgetReport? = nil,
        comparison: (any ReportSection)? = nil
    ) throws -> Written {
        try ReportFile.makeFolder(directory)
        let summary = judged(RunSummary(result, context: context), by: context)
        try save(try summary.encoded(), as: "summary.json", in: directory)
        try save(Data(percentileTable(result.latency).text.utf8), as: "latency_percentiles.csv", in: directory)
        try save(Data(timeseriesTable(result.timeline).text.utf8), as: "timeseries.csv", in: directory)
        try save(Data(hgrm(result.latency).utf8), as: "latency.hgrm", in: directory)
        try saveOutcomes(result.counts, result.rejectedByReason, result.erroredByKind, result.perConnection, directory)
        try saveStacksAndBudget(context: context, budget: budget, directory: directory)
        let html = HTMLReport(result: result, context: context, budget: budget, comparison: comparison).render()
        try save(Data(html.utf8), as: "report.html", in: directory)
        return Written(
            directory: directory,
            htmlPath: (directory as NSString).appendingPathComponent("report.html"),
            summary: summary
        )
    }

    /// `summary` with the verdicts of `context`'s judge, when it has one.
    package static func judged(_ summary: RunSummary, by context: RunContext) -> RunSummary {
        var summary = summary
        summary.thresholds = context.judge?(summary)
        return summary
    }

    /// `outcomes.csv` and `connections.csv`.
    package static func saveOutcomes(
        _ counts: OutcomeCounts,
        _ rejectedByReason: [String: Int],
        _ erroredByKind: [String: Int],
        _ perConnection: [Int: Int],
        _ directory: String
    ) throws {
        let outcomes = outcomesTable(counts, rejectedByReason: rejectedByReason, erroredByKind: erroredByKind)
        try save(Data(outcomes.text.utf8), as: "outcomes.csv", in: directory)
        try save(Data(connectionsTable(perConnection).text.utf8), as: "connections.csv", in: directory)
    }

    /// The sampled stacks (`stacks.folded`) and the budget's files, when there are any.
    package static func saveStacksAndBudget(context: RunContext, budget: BudgetReport?, directory: String) throws {
        if case .success(let profile) = context.cpuSampling {
            try save(Data(profile.stacks.text.utf8), as: "stacks.folded", in: directory)
        }
        if let budget { _ = try budget.write(directory: directory) }
    }

    /// The percentile spectrum as HdrHistogram prints it (5 ticks per half distance).
    public static func percentileTable(_ histogram: Histogram<UInt64>) -> CSVTable {
        var table = CSVTable(columns: [
            "percentile", "latency_us", "count_at_or_below", "one_over_one_minus_percentile",
        ])
        guard histogram.totalCount > 0 else { return table }
        for step in histogram.percentiles(ticksPerHalfDistance: 5) {
            let fraction = step.percentileLevelIteratedTo / 100
            let inverse = fraction < 1 ? String(format: "%.2f", 1 / (1 - fraction)) : "inf"
            table.append([
                String(format: "%.6f", step.percentileLevelIteratedTo), String(step.value),
                String(step.totalCountToThisValue), inverse,
            ])
        }
        return table
    }

    /// The latency histogram in HdrHistogram's percentile-distribution format, in milliseconds, as
    /// wrk2 prints it: HdrHistogram's plotter and other tools read it as it is.
    public static func hgrm(_ histogram: Histogram<UInt64>) -> String {
        var text = ""
        histogram.outputPercentileDistribution(to: &text, outputValueUnitScalingRatio: 1000)
        return text
    }

    /// Every request by outcome, and rejections and errors by reason.
    public static func outcomesTable(
        _ counts: OutcomeCounts,
        rejectedByReason: [String: Int],
        erroredByKind: [String: Int]
    ) -> CSVTable {
        var table = CSVTable(columns: ["outcome", "reason", "requests", "share_percent"])
        let sent = max(counts.sent, 1)
        func row(_ outcome: String, _ reason: String, _ count: Int) {
            table.append([outcome, reason, String(count), String(format: "%.3f", Double(count) * 100 / Double(sent))])
        }
        row("succeeded", "", counts.succeeded)
        for (reason, count) in rejectedByReason.sorted(by: { $0.key < $1.key }) { row("rejected", reason, count) }
        for (kind, count) in erroredByKind.sorted(by: { $0.key < $1.key }) { row("errored", kind, count) }
        row("timed_out", "", counts.timedOut)
        return table
    }

    /// Answers per connection, by the shard and the client's local port.
    public static func connectionsTable(_ perConnection: [Int: Int]) -> CSVTable {
        var table = CSVTable(columns: ["shard", "local_port", "answered_requests"])
        for (key, answered) in perConnection.sorted(by: { $0.key < $1.key }) {
            let connection = RunResult.connection(ofKey: key)
            table.append([String(connection.shard), String(connection.localPort), String(answered)])
        }
        return table
    }

    /// The time series, one row per interval of the run's resolution.
    public static func timeseriesTable(_ timeline: [TimelineSample]) -> CSVTable {
        var table = CSVTable(columns: [
            "start_s", "interval_s", "sent", "succeeded", "rejected", "errored", "timed_out", "completed_per_s",
            "succeeded_per_s", "p50_us", "p99_us", "max_us",
        ])
        for sample in timeline {
            let counts = sample.counts
            table.append(
                [String(format: "%.3f", sample.startSeconds), String(format: "%.3f", sample.intervalSeconds)]
                    + [counts.sent, counts.succeeded, counts.rejected, counts.errored, counts.timedOut].map {
                        String($0)
                    }
                    + [
                        String(format: "%.1f", sample.completedPerSecond),
                        String(format: "%.1f", sample.succeededPerSecond),
                    ]
                    + [sample.p50Us, sample.p99Us, sample.maxUs].map { String($0) }
            )
        }
        return table
    }

    package static func save(_ data: Data, as name: String, in directory: String) throws {
        try ReportFile.save(data, toPath: (directory as NSString).appendingPathComponent(name))
    }
}
