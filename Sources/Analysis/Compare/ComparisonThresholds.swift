import Foundation

/// What a CI gate tolerates between a baseline and the current build.
///
/// In `speed` mode (the default) it judges throughput, p99 and the error rate against limits, and
/// correctness always. In `counts` mode it judges only what cannot flake on a shared machine: the
/// same requests sent, the same outcomes, balanced books and a mock that agrees; speed is shown,
/// not judged. In `instructions` mode it judges instruction counts per push
/// (`hotpath --instructions`), stage by stage: figures a busy machine cannot change. In `budget`
/// mode it judges what an update policy spends of the devices' budget (`budget_summary.json`).
public struct ComparisonThresholds: Sendable, Equatable {
    /// What is judged.
    public enum Mode: String, Sendable, CaseIterable {
        case speed
        case counts
        case instructions
        case budget
    }

    /// The largest throughput drop allowed, percent of the baseline.
    public var maxThroughputDropPercent: Double = 5
    /// The largest p99 rise allowed, percent of the baseline.
    public var maxP99RisePercent: Double = 10
    /// The largest share of requests that may fail (rejected, errored or timed out), percent;
    /// for profiles also the largest share of events that may go missing.
    public var maxErrorRatePercent: Double = 0.1
    /// For profiles, the largest rise of the sender's CPU per push, percent of the baseline.
    public var maxCPURisePercent: Double = 10
    /// What is judged.
    public var mode = Mode.speed
    /// The significance level: with runs enough on each side, a timing beyond its limit fails only
    /// when the Mann-Whitney U test's p-value is below it.
    public var alpha = 0.01
    /// In instructions mode, the largest rise of a stage's (and the total's) instructions per
    /// push, percent, where `maxStageRisePercent` sets none of its own.
    public var maxInstructionRisePercent: Double = 2
    /// Limits of their own for some stages, by `PushStage` raw value, percent.
    public var maxStageRisePercent: [String: Double] = [:]
    /// In budget mode, the largest rise of priority-10 pushes per activity-hour, percent.
    public var maxBudgetRisePercent: Double = 5
    /// In budget mode, the largest rise of the share of activities throttled, percentage points.
    public var maxThrottledRisePoints: Double = 1
    /// In budget mode, the largest drop of the share of key events shown within the target,
    /// percentage points.
    public var maxKeyShareDropPoints: Double = 1

    /// The defaults: 5% throughput drop, 10% p99 rise, 0.1% errors (and, for profiles, 10% CPU
    /// per push rise and 0.1% events missing), speed mode, alpha 0.01, and
    /// in instructions mode a 2% rise of any stage; in budget mode a 5% rise of priority-10
    /// pushes per activity-hour, and 1 point more activities throttled or fewer key events shown
    /// in time.
    public init() {}

    /// The largest rise allowed in `stage`'s instructions per push, percent.
    public func instructionLimit(for stage: String) -> Double {
        maxStageRisePercent[stage] ?? maxInstructionRisePercent
    }

    /// A stage's own limit, `STAGE=PERCENT` as `--max-stage-rise` takes it.
    /// - Throws: `ComparisonError` naming the option.
    public static func stageLimit(_ text: String, for option: String) throws -> (stage: String, percent: Double) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else {
            throw ComparisonError("\(option) '\(text)': expected STAGE=PERCENT, such as es256_signature=5%")
        }
        return (parts[0], try percent(parts[1], for: option))
    }

    /// A percentage such as `5%`, `0.1%` or `5`.
    /// - Throws: `ComparisonError` naming the option.
    public static func percent(_ text: String, for option: String) throws -> Double {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let value = Double(digits), value >= 0, value.isFinite else {
            throw ComparisonError("\(option) '\(text)': expected a percentage such as 5%")
        }
        return value
    }

    /// A significance level such as `0.01`: above 0 and below 1.
    /// - Throws: `ComparisonError` naming the option.
    public static func significanceLevel(_ text: String, for option: String) throws -> Double {
        guard let value = Double(text), value > 0, value < 1 else {
            throw ComparisonError(
                "\(option) '\(text)': expected a significance level above 0 and below 1, such as 0.01"
            )
        }
        return value
    }

    /// Thresholds from a JSON file: `{"max_throughput_drop": "5%", "max_p99_rise": "10%",
    /// "max_error_rate": "0.1%", "mode": "speed", "alpha": 0.01, "max_instruction_rise": "2%",
    /// "max_stage_rise": {"es256_signature": "5%"}}`, every key optional.
    /// - Throws: `ComparisonError` naming the file and the key.
    public static func load(_ path: String) throws -> ComparisonThresholds {
        guard let data = FileManager.default.contents(atPath: path),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else {
            throw ComparisonError("\(path): cannot read it as a JSON object of thresholds")
        }
        let known = [
            "max_throughput_drop", "max_p99_rise", "max_error_rate", "mode", "alpha", "max_instruction_rise",
            "max_stage_rise", "max_budget_rise", "max_throttled_rise", "max_key_share_drop", "max_cpu_rise",
        ]
        if let unknown = object.keys.filter({ !known.contains($0) }).sorted().first {
            throw ComparisonError("\(path): unknown key '\(unknown)' (known: \(known.joined(separator: ", ")))")
        }
        var thresholds = ComparisonThresholds()
        func value(_ key: String) throws -> Double? {
            guard let raw = object[key] else { return nil }
            return try percent((raw as? String) ?? "\(raw)", for: "\(path): \(key)")
        }
        thresholds.maxThroughputDropPercent = try value("max_throughput_drop") ?? thresholds.maxThroughputDropPercent
        thresholds.maxP99RisePercent = try value("max_p99_rise") ?? thresholds.maxP99RisePercent
        thresholds.maxErrorRatePercent = try value("max_error_rate") ?? thresholds.maxErrorRatePercent
        thresholds.maxCPURisePercent = try value("max_cpu_rise") ?? thresholds.maxCPURisePercent
        thresholds.maxInstructionRisePercent =
            try value("max_instruction_rise") ?? thresholds.maxInstructionRisePercent
        thresholds.maxBudgetRisePercent = try value("max_budget_rise") ?? thresholds.maxBudgetRisePercent
        thresholds.maxThrottledRisePoints = try value("max_throttled_rise") ?? thresholds.maxThrottledRisePoints
        thresholds.maxKeyShareDropPoints = try value("max_key_share_drop") ?? thresholds.maxKeyShareDropPoints
        if let stages = object["max_stage_rise"] {
            guard let stages = stages as? [String: Any] else {
                throw ComparisonError("\(path): max_stage_rise must be an object of stage names and percentages")
            }
            for (stage, raw) in stages {
                thresholds.maxStageRisePercent[stage] = try percent(
                    (raw as? String) ?? "\(raw)",
                    for: "\(path): max_stage_rise.\(stage)"
                )
            }
        }
        if let alpha = object["alpha"] {
            thresholds.alpha = try significanceLevel((alpha as? String) ?? "\(alpha)", for: "\(path): alpha")
        }
        if let mode = object["mode"] {
            guard let name = mode as? String, let parsed = Mode(rawValue: name) else {
                throw ComparisonError("\(path): mode must be speed, counts, instructions or budget")
            }
            thresholds.mode = parsed
        }
        return thresholds
    }
}
