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
        let p10Change =
            baseline.p10PerActivityHour == 0
            ? 0 : (current.p10PerActivityHour - baseline.p10PerActivityHour) / baseline.p10PerActivityHour * 100
        let throttled = (baseline.throttledShare * 100, current.throttledShare * 100)
        let key = (baseline.keyEventsWithinTargetShare * 100, current.keyEventsWithinTargetShare * 100)
        var thresholds = thresholds
        thresholds.mode = .budget
        let checks = [
            Check(
                name: "p10_per_activity_hour",
                baseline: String(format: "%.2f", baseline.p10PerActivityHour),
                current: String(format: "%.2f", current.p10PerActivityHour),
                change: String(format: "%+.1f%%", p10Change),
                limit: "rise ≤ \(thresholds.maxBudgetRisePercent.formatted())%",
                verdict: p10Change > thresholds.maxBudgetRisePercent ? .fail : .pass
            ),
            Self.sharePoints("throttled_share_percent", throttled, limit: thresholds.maxThrottledRisePoints),
            Self.sharePoints(
                "key_events_within_\(baseline.keyLagTargetSeconds.formatted())s_percent",
                key,
                limit: thresholds.maxKeyShareDropPoints,
                worseWhenLower: true
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
        self.init(oneASide: checks, thresholds: thresholds)
    }

    /// A share's check, in percentage points: it fails when it moved more than `limit` points
    /// the wrong way (down when `worseWhenLower`, else up).
    private static func sharePoints(
        _ name: String,
        _ percents: (baseline: Double, current: Double),
        limit: Double,
        worseWhenLower: Bool = false
    ) -> Check {
        let change = percents.current - percents.baseline
        return Check(
            name: name,
            baseline: String(format: "%.2f", percents.baseline),
            current: String(format: "%.2f", percents.current),
            change: String(format: "%+.2f pt", change),
            limit: "\(worseWhenLower ? "drop" : "rise") ≤ \(limit.formatted()) pt",
            verdict: (worseWhenLower ? -change : change) > limit ? .fail : .pass
        )
    }

    /// The parameters of `these` whose values `those` does not share, as `name=value`, or `same`.
    private static func differing(_ these: [String: String], from those: [String: String]) -> String {
        let names = Set(these.keys).union(those.keys).sorted().filter { these[$0] != those[$0] }
        return names.isEmpty ? "same" : names.map { "\($0)=\(these[$0] ?? "none")" }.joined(separator: " ")
    }
}
