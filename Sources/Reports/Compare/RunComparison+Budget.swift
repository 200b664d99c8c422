import Foundation

extension RunComparison {
    /// Compares what two budget analyses say a sender's policy spends: priority-10 pushes per
    /// activity-hour (fails on a rise beyond `maxBudgetRisePercent`), the share of activities
    /// throttled (fails on a rise beyond `maxThrottledRisePoints` percentage points), and the
    /// share of key events shown within the target (fails on a drop beyond
    /// `maxKeyShareDropPoints`). The model is deterministic, so one analysis a side.
    /// - Throws: `ComparisonError` when the two were judged against different key-lag targets.
    public init(baseline: BudgetFigures, current: BudgetFigures, thresholds: ComparisonThresholds) throws {
        guard baseline.keyLagTargetSeconds == current.keyLagTargetSeconds else {
            throw ComparisonError(
                "the baseline's key-lag target is \(baseline.keyLagTargetSeconds.formatted()) s, the current one's "
                    + "\(current.keyLagTargetSeconds.formatted()) s: analyse both with the same --key-lag-target"
            )
        }
        var thresholds = thresholds
        thresholds.mode = .budget
        self.thresholds = thresholds
        baselineRuns = 1
        currentRuns = 1
        judgesSignificance = false
        let p10Change =
            baseline.p10PerActivityHour == 0
            ? 0 : (current.p10PerActivityHour - baseline.p10PerActivityHour) / baseline.p10PerActivityHour * 100
        let throttled = (baseline.throttledShare * 100, current.throttledShare * 100)
        let key = (baseline.keyEventsWithinTargetShare * 100, current.keyEventsWithinTargetShare * 100)
        checks = [
            Check(
                name: "p10_per_activity_hour",
                baseline: String(format: "%.2f", baseline.p10PerActivityHour),
                current: String(format: "%.2f", current.p10PerActivityHour),
                change: String(format: "%+.1f%%", p10Change),
                limit: "rise ≤ \(thresholds.maxBudgetRisePercent.formatted())%",
                verdict: p10Change > thresholds.maxBudgetRisePercent ? .fail : .pass
            ),
            Check(
                name: "throttled_share_percent",
                baseline: String(format: "%.2f", throttled.0),
                current: String(format: "%.2f", throttled.1),
                change: String(format: "%+.2f pt", throttled.1 - throttled.0),
                limit: "rise ≤ \(thresholds.maxThrottledRisePoints.formatted()) pt",
                verdict: throttled.1 - throttled.0 > thresholds.maxThrottledRisePoints ? .fail : .pass
            ),
            Check(
                name: "key_events_within_\(baseline.keyLagTargetSeconds.formatted())s_percent",
                baseline: String(format: "%.2f", key.0),
                current: String(format: "%.2f", key.1),
                change: String(format: "%+.2f pt", key.1 - key.0),
                limit: "drop ≤ \(thresholds.maxKeyShareDropPoints.formatted()) pt",
                verdict: key.0 - key.1 > thresholds.maxKeyShareDropPoints ? .fail : .pass
            ),
            Check(
                name: "input",
                baseline: baseline.input,
                current: current.input,
                change: "",
                limit: "",
                verdict: .info
            ),
            Check(
                name: "parameters",
                baseline: Self.differing(baseline.parameters, from: current.parameters),
                current: Self.differing(current.parameters, from: baseline.parameters),
                change: "",
                limit: "",
                verdict: .info
            ),
        ]
    }

    /// The parameters of `these` whose values `those` does not share, as `name=value`, or `same`.
    private static func differing(_ these: [String: String], from those: [String: String]) -> String {
        let names = Set(these.keys).union(those.keys).sorted().filter { these[$0] != those[$0] }
        return names.isEmpty ? "same" : names.map { "\($0)=\(these[$0] ?? "none")" }.joined(separator: " ")
    }
}
