import Foundation
import Reports
import Sampling

/// A current build's runs judged against a baseline's (`pushbench compare`): each figure's
/// median on both sides, its change, its limit and a verdict, so one noisy run does not fail a
/// build and a real regression does.
public struct RunComparison: ReportSection {
    /// What a check concluded.
    public enum Verdict: String, Sendable {
        /// Within its limit.
        case pass
        /// Beyond its limit: a regression.
        case fail
        /// Shown, not judged.
        case info
    }

    /// One figure, compared.
    public struct Check: Sendable, Equatable {
        /// The figure, with its unit.
        public var name: String
        public var baseline: String
        public var current: String
        /// The relative change, or empty where a change means nothing.
        public var change: String
        /// For a timing, the Mann-Whitney U test's two-sided p-value, or empty.
        public var pValue: String = ""
        /// For a timing, the bootstrap interval of current/baseline at 1 - alpha, or empty.
        public var ratioInterval: String = ""
        /// The limit it is judged against, or empty.
        public var limit: String
        public var verdict: Verdict
    }

    /// The checks in the order they print.
    public let checks: [Check]
    /// The thresholds judged against.
    public let thresholds: ComparisonThresholds
    /// Runs on each side.
    public let baselineRuns: Int
    public let currentRuns: Int
    /// Whether this many runs a side can show a difference significant at `thresholds.alpha`;
    /// when they cannot, the limits are judged on the medians alone, and the report says so.
    public let judgesSignificance: Bool

    /// Whether no check failed.
    public var passed: Bool { !checks.contains { $0.verdict == .fail } }

    /// Compares the runs of `current` with those of `baseline`: each timing's medians, and, where
    /// there are runs enough, whether the difference is beyond noise.
    public init(baseline: [RunFigures], current: [RunFigures], thresholds: ComparisonThresholds) {
        precondition(!baseline.isEmpty && !current.isEmpty, "a comparison needs runs on both sides")
        self.thresholds = thresholds
        baselineRuns = baseline.count
        currentRuns = current.count
        let judgesSignificance =
            MannWhitneyTest.smallestPValue(n: baseline.count, m: current.count) < thresholds.alpha
        self.judgesSignificance = judgesSignificance
        let speedJudged = thresholds.mode == .speed
        let judge = TimingJudge(
            baseline: baseline,
            current: current,
            thresholds: thresholds,
            judgesSignificance: judgesSignificance
        )
        var checks =
            (baseline + current).allSatisfy(\.isProfile)
            ? judge.profileChecks + [
                Self.share(
                    "missing_events_percent",
                    baseline.map(\.missingRate),
                    current.map(\.missingRate),
                    limit: speedJudged ? thresholds.maxErrorRatePercent : nil
                ),
                Self.share(
                    "duplicate_events_percent",
                    baseline.map(\.duplicateRate),
                    current.map(\.duplicateRate),
                    limit: speedJudged ? thresholds.maxErrorRatePercent : nil
                ),
            ]
            : judge.runChecks
        checks.append(
            Self.share(
                "error_rate_percent",
                baseline.map(\.errorRate),
                current.map(\.errorRate),
                limit: speedJudged ? thresholds.maxErrorRatePercent : nil
            )
        )
        checks += Self.lifecycle(
            baseline: baseline,
            current: current,
            limit: speedJudged ? thresholds.maxErrorRatePercent : nil
        )
        checks += Self.cpuShares(baseline: baseline, current: current)
        checks += Self.correctness(baseline: baseline, current: current, countsJudged: !speedJudged)
        self.checks = checks
    }

    /// Where the CPU went on each side, when every run's stacks were sampled: each class of
    /// code's median share, and its change in percentage points, so a regression in CPU a push
    /// shows which code took the time. Shown, not judged: a share moves when another class does.
    private static func cpuShares(baseline: [RunFigures], current: [RunFigures]) -> [Check] {
        let sides = (baseline.compactMap(\.cpuSharesPercent), current.compactMap(\.cpuSharesPercent))
        guard sides.0.count == baseline.count, sides.1.count == current.count else { return [] }
        return CPUShare.allCases.map { share in
            let medians = (
                MedianRatioInterval.median(sides.0.map { $0[share.rawValue] ?? 0 }),
                MedianRatioInterval.median(sides.1.map { $0[share.rawValue] ?? 0 })
            )
            return Check(
                name: "cpu_share_\(share.rawValue)_percent",
                baseline: String(format: "%.1f", medians.0),
                current: String(format: "%.1f", medians.1),
                change: String(format: "%+.1f pts", medians.1 - medians.0),
                limit: "",
                verdict: .info
            )
        }
    }

    /// A comparison of one file a side (instruction counts, budget analyses), which needs no
    /// statistics: `checks` as they are, judged under `thresholds`.
    init(oneASide checks: [Check], thresholds: ComparisonThresholds) {
        self.checks = checks
        self.thresholds = thresholds
        baselineRuns = 1
        currentRuns = 1
        judgesSignificance = false
    }

    /// A share that must stay under `limit` percent (judged when given): the median of the
    /// current runs' against it, the baseline's shown beside it.
    static func share(_ name: String, _ baseline: [Double], _ current: [Double], limit: Double?) -> Check {
        let medians = (MedianRatioInterval.median(baseline) * 100, MedianRatioInterval.median(current) * 100)
        return Check(
            name: name,
            baseline: String(format: "%.3f", medians.0),
            current: String(format: "%.3f", medians.1),
            change: "",
            limit: limit.map { "≤ \($0.formatted())%" } ?? "",
            verdict: limit.map { medians.1 > $0 ? .fail : .pass } ?? .info
        )
    }

    /// A p-value to four places, or `<0.0001`.
    fileprivate static func format(pValue: Double) -> String {
        pValue < 0.0001 ? "<0.0001" : String(format: "%.4f", pValue)
    }

    /// Rejections as `Reason=count` pairs, or `none`.
    private static func reasons(_ counts: [String: Int]) -> String {
        counts.isEmpty
            ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// Checks that hold in every mode: balanced books and a mock that agrees; in counts mode also
    /// the same requests sent with the same outcomes, run for run.
    private static func correctness(baseline: [RunFigures], current: [RunFigures], countsJudged: Bool) -> [Check] {
        func allOf(_ figures: [RunFigures], _ holds: (RunFigures) -> Bool) -> String {
            "\(figures.count { holds($0) })/\(figures.count)"
        }
        var checks = [
            Check(
                name: "accounting_balanced",
                baseline: allOf(baseline, \.balanced),
                current: allOf(current, \.balanced),
                change: "",
                limit: "every run",
                verdict: current.allSatisfy(\.balanced) ? .pass : .fail
            )
        ]
        let counted = current.filter { $0.serverAgrees != nil }
        if !counted.isEmpty {
            checks.append(
                Check(
                    name: "mock_agrees_with_client",
                    baseline: allOf(baseline.filter { $0.serverAgrees != nil }, { $0.serverAgrees == true }),
                    current: allOf(counted, { $0.serverAgrees == true }),
                    change: "",
                    limit: "every run",
                    verdict: counted.allSatisfy { $0.serverAgrees == true } ? .pass : .fail
                )
            )
        }
        let outcomes: [(String, (RunFigures) -> String)] = [
            ("sent", { String($0.sent) }), ("succeeded", { String($0.succeeded) }),
            ("rejected_by_reason", { Self.reasons($0.rejectedByReason) }),
            ("errored", { String($0.errored) }), ("errored_by_kind", { Self.reasons($0.erroredByKind) }),
            ("timed_out", { String($0.timedOut) }),
        ]
        for (name, describe) in outcomes {
            let before = Set(baseline.map(describe))
            let after = Set(current.map(describe))
            checks.append(
                Check(
                    name: name,
                    baseline: before.sorted().joined(separator: " | "),
                    current: after.sorted().joined(separator: " | "),
                    change: "",
                    limit: countsJudged ? "equal" : "",
                    verdict: !countsJudged ? .info : before == after && after.count == 1 ? .pass : .fail
                )
            )
        }
        return checks
    }
}

/// Judges one timing of a comparison: its medians on each side, their change, and, in speed mode
/// with a limit, whether it moved the wrong way beyond the limit and beyond noise.
private struct TimingJudge {
    let baseline: [RunFigures]
    let current: [RunFigures]
    let thresholds: ComparisonThresholds
    let judgesSignificance: Bool

    /// A profile's timings: pushes a second, lag, and the sender's CPU a push.
    var profileChecks: [RunComparison.Check] {
        [
            check(
                "pushes_per_s",
                \.throughputPerSecond,
                decimals: 1,
                limit: (thresholds.maxThroughputDropPercent, true)
            ),
            check("lag_p99_us", \.p99Us, decimals: 0, limit: (thresholds.maxP99RisePercent, false)),
            check("lag_p50_us", \.p50Us, decimals: 1),
            check("cpu_us_per_push", \.cpuPerRequestUs, decimals: 1, limit: (thresholds.maxCPURisePercent, false)),
        ]
    }

    /// A run's timings: throughput, latency, and the engine's CPU a request.
    var runChecks: [RunComparison.Check] {
        [
            check(
                "throughput_per_s",
                \.throughputPerSecond,
                decimals: 1,
                limit: (thresholds.maxThroughputDropPercent, true)
            ),
            check("latency_p99_us", \.p99Us, decimals: 0, limit: (thresholds.maxP99RisePercent, false)),
            check("latency_p50_us", \.p50Us, decimals: 1),
            check("latency_p99_9_us", \.p999Us, decimals: 1),
            check("cpu_us_per_request", \.cpuPerRequestUs, decimals: 1),
        ]
    }

    /// A timing's check; `limit` says how far it may move the wrong way (percent, positive)
    /// and which way is wrong.
    func check(
        _ name: String,
        _ value: KeyPath<RunFigures, Double>,
        decimals: Int,
        limit: (percent: Double, worseWhenLower: Bool)? = nil
    ) -> RunComparison.Check {
        let sides = (baseline.map { $0[keyPath: value] }, current.map { $0[keyPath: value] })
        let medians = (MedianRatioInterval.median(sides.0), MedianRatioInterval.median(sides.1))
        let change = medians.0 == 0 ? 0 : (medians.1 - medians.0) / medians.0 * 100
        let test = MannWhitneyTest(baseline: sides.0, current: sides.1)
        let interval = MedianRatioInterval(baseline: sides.0, current: sides.1, level: 1 - thresholds.alpha)
        var check = RunComparison.Check(
            name: name,
            baseline: String(format: "%.\(decimals)f", medians.0),
            current: String(format: "%.\(decimals)f", medians.1),
            change: String(format: "%+.1f%%", change),
            pValue: judgesSignificance ? RunComparison.format(pValue: test.pValue) : "",
            ratioInterval: interval.map { String(format: "%.3f..%.3f", $0.low, $0.high) } ?? "",
            limit: "",
            verdict: .info
        )
        guard let limit, thresholds.mode == .speed else { return check }
        let worse = limit.worseWhenLower ? -change : change
        let beyond = worse > limit.percent
        let significant = !judgesSignificance || test.pValue < thresholds.alpha
        check.limit = "\(limit.worseWhenLower ? "drop" : "rise") ≤ \(limit.percent.formatted())%"
        check.verdict = beyond && significant ? .fail : .pass
        return check
    }
}
