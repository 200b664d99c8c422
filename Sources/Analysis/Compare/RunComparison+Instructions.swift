import Foundation
import Instructions

extension RunComparison {
    /// Compares two instruction counts (`hotpath --instructions`) stage by stage: a stage, or the
    /// total, fails when its instructions per push rose beyond its limit. One count a side is
    /// enough, since a count does not change with the machine's load; so no statistics.
    /// - Throws: `ComparisonError` in one line when the two were not counted the same way: another
    ///   PushBench version, another stage list or, unless `allowingDifferentWorkloads`, another
    ///   workload.
    public init(
        baseline: InstructionCounts,
        current: InstructionCounts,
        thresholds: ComparisonThresholds,
        allowingDifferentWorkloads: Bool = false
    ) throws {
        let differences = [
            ("PushBench version", baseline.build.version, current.build.version),
            ("stage list", Self.stageList(baseline), Self.stageList(current)),
            ("workload", baseline.workload, allowingDifferentWorkloads ? baseline.workload : current.workload),
        ]
        if let (what, before, after) = differences.first(where: { $0.1 != $0.2 }) {
            throw ComparisonError(
                "the baseline was counted with another \(what) (\(before), not \(after)): count the baseline again"
            )
        }
        var thresholds = thresholds
        thresholds.mode = .instructions
        var checks: [Check] = []
        let stages = zip(baseline.stages, current.stages).map {
            ($0.stage, $0.instructionsPerPush, $1.instructionsPerPush)
        }
        for (name, before, after) in stages + [("total", baseline.totalPerPush, current.totalPerPush)] {
            let limit = thresholds.instructionLimit(for: name)
            let change = before == 0 ? 0 : (after - before) / before * 100
            checks.append(
                Check(
                    name: "\(name)_instructions_per_push",
                    baseline: String(format: "%.1f", before),
                    current: String(format: "%.1f", after),
                    change: String(format: "%+.2f%%", change),
                    limit: "rise ≤ \(limit.formatted())%",
                    verdict: change > limit ? .fail : .pass
                )
            )
        }
        for (name, before, after) in [
            ("libssl", baseline.build.openssl, current.build.openssl),
            ("libnghttp2", baseline.build.libnghttp2, current.build.libnghttp2),
            ("counter", baseline.counter, current.counter),
            ("commit", baseline.build.commit, current.build.commit),
        ] {
            checks.append(Check(name: name, baseline: before, current: after, change: "", limit: "", verdict: .info))
        }
        self.init(oneASide: checks, thresholds: thresholds)
    }

    private static func stageList(_ counts: InstructionCounts) -> String {
        counts.stages.map(\.stage).joined(separator: ",")
    }
}
