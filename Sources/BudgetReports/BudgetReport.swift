import Budget
import Foundation
import Histogram
import Pages

/// A budget run's report: `budget_summary.json`, the CSV tables and `budget.html`, all built
/// from one `BudgetResult` (and the recommendations, when computed).
public struct BudgetReport {
    /// The simulation.
    public let result: BudgetResult
    /// What the model advises, if it was asked.
    public let recommendations: BudgetRecommendations?
    /// Where the parameters came from (the preset's source, or "overridden").
    public let parametersSource: String
    /// The run's identifier and folder name.
    public let runID: String
    /// The command line, as typed.
    public let commandLine: String

    /// The sentence every budget report carries.
    public static let estimateNote =
        "Apple publishes no Live Activity budget numbers (docs/apns.md §3.6): these "
        + "figures are estimates from the model's parameters, not measurements of devices."

    /// The display lag a key event should be shown within, seconds (`--key-lag-target`): the
    /// summary's share of key events shown within it is what a budget gate judges.
    public let keyLagTargetSeconds: Double

    /// Creates a report.
    public init(
        result: BudgetResult,
        recommendations: BudgetRecommendations?,
        parametersSource: String,
        runID: String,
        commandLine: String,
        keyLagTargetSeconds: Double = 15
    ) {
        self.result = result
        self.keyLagTargetSeconds = keyLagTargetSeconds
        self.recommendations = recommendations
        self.parametersSource = parametersSource
        self.runID = runID
        self.commandLine = commandLine
    }

    /// Percentiles reported for display lag.
    static let lagPercentiles: [(name: String, level: Double)] = [
        ("p50", 50), ("p90", 90), ("p99", 99), ("p99_9", 99.9), ("max", 100),
    ]

    /// Display-lag percentiles of `histogram` in ms, keyed `p50` … `max`; empty when it is.
    static func lagPercentilesMs(_ histogram: Histogram<UInt64>) -> [String: UInt64] {
        guard histogram.totalCount > 0 else { return [:] }
        var result: [String: UInt64] = [:]
        for (name, level) in lagPercentiles {
            result[name] = level == 100 ? histogram.max : histogram.valueAtPercentile(level)
        }
        return result
    }

    /// Writes the budget's files into `directory` (`<reports-dir>/<run-id>/`, `--run-dir`, or a
    /// run's own report folder); returns it.
    /// - Throws: `ReportError` naming the file and the system's reason.
    public func write(directory: String) throws -> String {
        try ReportFile.makeFolder(directory)
        func save(_ text: String, _ name: String) throws {
            try ReportFile.save(Data(text.utf8), toPath: (directory as NSString).appendingPathComponent(name))
        }
        try ReportFile.save(
            try summary.encoded(),
            toPath: (directory as NSString).appendingPathComponent("budget_summary.json")
        )
        try save(timelineTable.text, "budget_timeline.csv")
        try save(eventTable.text, "budget_by_event.csv")
        try save(lagTable.text, "budget_display_lag.csv")
        if !result.tally.sampled.isEmpty { try save(activityTable.text, "budget_activities.csv") }
        try save(HTML.page(title: "PushBench budget \(runID)", body: htmlBody), "budget.html")
        return directory
    }

    /// The budget section inside a run's `report.html`: the same content, one heading level down.
    package var embeddedHTML: String {
        htmlBody.replacingOccurrences(of: "<h2>", with: "<h3>").replacingOccurrences(of: "</h2>", with: "</h3>")
            .replacingOccurrences(of: "<h1>", with: "<h2>").replacingOccurrences(of: "</h1>", with: "</h2>")
    }
}
