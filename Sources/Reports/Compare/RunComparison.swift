import Foundation

/// A current build's runs judged against a baseline's (`pushbench compare`): each figure's
/// median on both sides, its change, its limit and a verdict, so one noisy run does not fail a
/// build and a real regression does.
public struct RunComparison: Sendable {
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

    /// Whether no check failed.
    public var passed: Bool { !checks.contains { $0.verdict == .fail } }

    /// Compares the medians of `current` with those of `baseline`.
    public init(baseline: [RunFigures], current: [RunFigures], thresholds: ComparisonThresholds) {
        precondition(!baseline.isEmpty && !current.isEmpty, "a comparison needs runs on both sides")
        self.thresholds = thresholds
        baselineRuns = baseline.count
        currentRuns = current.count
        let speedJudged = thresholds.mode == .speed
        func median(_ figures: [RunFigures], _ value: (RunFigures) -> Double) -> Double {
            let sorted = figures.map(value).sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        func relative(_ base: Double, _ now: Double) -> Double { base == 0 ? 0 : (now - base) / base * 100 }
        func figure(_ value: Double, decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
        func signed(_ percent: Double) -> String { String(format: "%+.1f%%", percent) }
        var checks: [Check] = []

        let throughput = (median(baseline, \.throughputPerSecond), median(current, \.throughputPerSecond))
        let drop = -relative(throughput.0, throughput.1)
        checks.append(
            Check(
                name: "throughput_per_s",
                baseline: figure(throughput.0, decimals: 1),
                current: figure(throughput.1, decimals: 1),
                change: signed(-drop),
                limit: speedJudged ? "drop ≤ \(thresholds.maxThroughputDropPercent.formatted())%" : "",
                verdict: !speedJudged ? .info : drop > thresholds.maxThroughputDropPercent ? .fail : .pass
            )
        )
        let p99 = (median(baseline, \.p99Us), median(current, \.p99Us))
        let rise = relative(p99.0, p99.1)
        checks.append(
            Check(
                name: "latency_p99_us",
                baseline: figure(p99.0, decimals: 0),
                current: figure(p99.1, decimals: 0),
                change: signed(rise),
                limit: speedJudged ? "rise ≤ \(thresholds.maxP99RisePercent.formatted())%" : "",
                verdict: !speedJudged ? .info : rise > thresholds.maxP99RisePercent ? .fail : .pass
            )
        )
        for (name, value) in [
            ("latency_p50_us", \RunFigures.p50Us), ("latency_p99_9_us", \.p999Us),
            ("cpu_us_per_request", \.cpuPerRequestUs),
        ] {
            let pair = (median(baseline, { $0[keyPath: value] }), median(current, { $0[keyPath: value] }))
            checks.append(
                Check(
                    name: name,
                    baseline: figure(pair.0, decimals: 1),
                    current: figure(pair.1, decimals: 1),
                    change: signed(relative(pair.0, pair.1)),
                    limit: "",
                    verdict: .info
                )
            )
        }
        let errors = (median(baseline, \.errorRate) * 100, median(current, \.errorRate) * 100)
        checks.append(
            Check(
                name: "error_rate_percent",
                baseline: figure(errors.0, decimals: 3),
                current: figure(errors.1, decimals: 3),
                change: "",
                limit: speedJudged ? "≤ \(thresholds.maxErrorRatePercent.formatted())%" : "",
                verdict: !speedJudged ? .info : errors.1 > thresholds.maxErrorRatePercent ? .fail : .pass
            )
        )
        checks += Self.correctness(baseline: baseline, current: current, countsJudged: !speedJudged)
        self.checks = checks
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
