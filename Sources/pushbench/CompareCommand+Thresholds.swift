import Analysis
import LoadEngine
import Reports

/// `pushbench compare`'s thresholds and the runs of speed and counts mode.
extension CompareCommand {
    /// The thresholds file, if any, with the flags on top.
    func thresholds() throws -> ComparisonThresholds {
        var thresholds = try thresholdsFile.map(ComparisonThresholds.load) ?? ComparisonThresholds()
        for (text, option, keyPath) in [
            (maxThroughputDrop, "--max-throughput-drop", \ComparisonThresholds.maxThroughputDropPercent),
            (maxP99Rise, "--max-p99-rise", \.maxP99RisePercent),
            (maxErrorRate, "--max-error-rate", \.maxErrorRatePercent),
            (maxCPURise, "--max-cpu-rise", \.maxCPURisePercent),
            (maxInstructionRise, "--max-instruction-rise", \.maxInstructionRisePercent),
            (maxBudgetRise, "--max-budget-rise", \.maxBudgetRisePercent),
            (maxThrottledRise, "--max-throttled-rise", \.maxThrottledRisePoints),
            (maxKeyShareDrop, "--max-key-share-drop", \.maxKeyShareDropPoints),
        ] {
            if let text { thresholds[keyPath: keyPath] = try ComparisonThresholds.percent(text, for: option) }
        }
        for text in maxStageRise {
            let (stage, percent) = try ComparisonThresholds.stageLimit(text, for: "--max-stage-rise")
            thresholds.maxStageRisePercent[stage] = percent
        }
        let stages = PushStage.allCases.map(\.rawValue) + ["total"]
        if let unknown = thresholds.maxStageRisePercent.keys.sorted().first(where: { !stages.contains($0) }) {
            throw ComparisonError("no stage '\(unknown)'; the stages: \(stages.joined(separator: ", "))")
        }
        if let alpha {
            thresholds.alpha = try ComparisonThresholds.significanceLevel(alpha, for: "--alpha")
        }
        if let mode {
            guard let parsed = ComparisonThresholds.Mode(rawValue: mode) else {
                throw ComparisonError("--mode must be speed, counts, instructions or budget")
            }
            thresholds.mode = parsed
        }
        return thresholds
    }

    /// Runs (or profiles) compared as speed and counts mode judge them. A profile's figures are
    /// a sender's pushes a second, lag and CPU per push, so it compares with profiles only.
    func runs(_ baseline: [String], _ current: [String], _ thresholds: ComparisonThresholds) throws -> RunComparison {
        let before = try baseline.map(RunFigures.init(contentsOf:))
        let after = try current.map(RunFigures.init(contentsOf:))
        guard Set((before + after).map(\.isProfile)).count == 1 else {
            throw ComparisonError(
                "a profile (pushbench profile) compares with profiles and a run with runs; these sides mix the two"
            )
        }
        try checkWorkloads(before.map(\.workload), after.map(\.workload))
        return RunComparison(baseline: before, current: after, thresholds: thresholds)
    }
}
