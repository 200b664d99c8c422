import Analysis
import ArgumentParser
import BudgetReports
import Foundation
import Instructions
import LoadEngine
import Reports

/// `pushbench compare`: the CI gate. Judges a build's runs against a baseline's and exits 0
/// (pass), 1 (regression) or 2 (bad input).
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Judge a build's runs against a baseline's, for CI: exit 0 pass, 1 regression, 2 bad input.",
        discussion: """
            Each side is one or more runs (a run's summary.json, or its report folder); the medians of each \
            side are compared, so one noisy run does not fail a build:

              pushbench compare baseline/summary.json Reports/<run>/ \\
                  --max-throughput-drop 5% --max-p99-rise 10%
              pushbench compare --baseline b1.json --baseline b2.json --baseline b3.json \\
                  --current c1.json --current c2.json --current c3.json \\
                  --markdown gate.md --junit gate.xml

            Speed mode (the default) judges throughput, p99 and the error rate, and always balanced books \
            and the mock agreeing. With runs enough a side (5 and 5 at --alpha 0.01), a timing fails only \
            when it is beyond its limit and the Mann-Whitney U test finds the difference significant \
            (p < --alpha); each timing also shows the bootstrap interval of current/baseline. With fewer \
            runs it says it cannot judge significance and judges the medians alone. Counts mode judges only what cannot flake on a shared machine: the same \
            requests sent with the same outcomes (use a fixed --seed and --requests), balanced books, the \
            mock agreeing; speed is shown, not judged.

            Instructions mode judges two instruction counts (pushbench hotpath --instructions --json), one a \
            side, stage by stage: a stage, or the total, fails when its instructions per push rose more than \
            its limit (--max-instruction-rise, default 2%; --max-stage-rise STAGE=PERCENT for one stage). \
            Counts from another PushBench version, stage list or workload are refused. Given two counts, \
            compare picks this mode itself:

              pushbench compare Benchmarks/baselines/instructions.json \\
                  current-instructions.json --junit gate.xml

            Budget mode judges two budget analyses (budget_summary.json, or the folder of one), so a change to \
            an update policy is gated like a change to speed: priority-10 pushes per activity-hour may rise \
            --max-budget-rise (default 5%), the share of activities throttled --max-throttled-rise points \
            (default 1), and the share of key events shown within --key-lag-target may drop \
            --max-key-share-drop points (default 1). Given two budget summaries, compare picks this mode itself.
            """
    )

    @Argument(help: "BASELINE CURRENT: two runs, when --baseline and --current are not used.")
    var runs: [String] = []

    @Option(name: .customLong("baseline"), help: "A baseline run (repeatable).")
    var baselines: [String] = []

    @Option(name: .customLong("current"), help: "A run of the build under test (repeatable).")
    var currents: [String] = []

    @Option(name: .customLong("max-throughput-drop"), help: "The largest throughput drop allowed (default 5%).")
    var maxThroughputDrop: String?

    @Option(name: .customLong("max-p99-rise"), help: "The largest p99 latency rise allowed (default 10%).")
    var maxP99Rise: String?

    @Option(
        name: .customLong("max-cpu-rise"),
        help: "Profiles: the largest rise of the sender's CPU per push allowed (default 10%)."
    )
    var maxCPURise: String?

    @Option(
        name: .customLong("max-error-rate"),
        help:
            "The largest share of the current runs' requests that may fail (default 0.1%); for profiles, also of the events missing and of the events sent twice."
    )
    var maxErrorRate: String?

    @Option(
        help:
            "speed (judge throughput, p99, errors), counts (judge outcomes only; cannot flake), instructions (judge instruction counts per stage; cannot flake) or budget (judge budget summaries)."
    )
    var mode: String?

    @Option(
        name: .customLong("max-instruction-rise"),
        help: "Instructions mode: the largest rise of a stage's instructions per push (default 2%)."
    )
    var maxInstructionRise: String?

    @Option(
        name: .customLong("max-stage-rise"),
        help: ArgumentHelp(
            "Instructions mode: one stage's own limit, such as es256_signature=5% (repeatable).",
            valueName: "stage=percent"
        )
    )
    var maxStageRise: [String] = []

    @Option(
        name: .customLong("max-budget-rise"),
        help: "Budget mode: the largest rise of priority-10 pushes per activity-hour (default 5%)."
    )
    var maxBudgetRise: String?

    @Option(
        name: .customLong("max-throttled-rise"),
        help: "Budget mode: the largest rise of the share of activities throttled, points (default 1)."
    )
    var maxThrottledRise: String?

    @Option(
        name: .customLong("max-key-share-drop"),
        help: "Budget mode: the largest drop of the share of key events shown in time, points (default 1)."
    )
    var maxKeyShareDrop: String?

    @Option(
        help:
            "The significance level (default 0.01): with runs enough a side, a timing beyond its limit fails only if the Mann-Whitney U test's p-value is below it."
    )
    var alpha: String?

    @Option(
        name: .customLong("thresholds"),
        help:
            "A JSON file of thresholds: {\"max_throughput_drop\": \"5%\", \"max_p99_rise\": \"10%\", \"max_error_rate\": \"0.1%\", \"mode\": \"speed\", \"alpha\": 0.01, \"max_instruction_rise\": \"2%\", \"max_stage_rise\": {\"es256_signature\": \"5%\"}, \"max_budget_rise\": \"5%\", \"max_throttled_rise\": 1, \"max_key_share_drop\": 1}; the flags override it."
    )
    var thresholdsFile: String?

    @Flag(
        name: .customLong("allow-different-workloads"),
        help: "Judge runs whose workloads differ (mode, scenario, activities, rate, requests), with a warning."
    )
    var allowDifferentWorkloads = false

    @Option(help: "Also write the table as Markdown here, for a pull-request comment.")
    var markdown: String?

    @Option(help: "Also write the judged checks as JUnit XML here, for CI test reports.")
    var junit: String?

    func run() throws {
        for case let (path?, flag) in [(markdown, "--markdown"), (junit, "--junit")] {
            try OutputPath.ensureFile(path, flag: flag)
        }
        let comparison: RunComparison
        let (baseline, current) = try sides()
        var thresholds = try thresholds()
        if mode == nil, (baseline + current).allSatisfy(InstructionCounts.isInstructionCount) {
            thresholds.mode = .instructions
        }
        if mode == nil, (baseline + current).allSatisfy(BudgetFigures.isBudgetSummary) {
            thresholds.mode = .budget
        }
        switch thresholds.mode {
        case .budget:
            let (before, after) = try oneASide(
                baseline,
                current,
                .budget,
                "analysis",
                why: "the model is deterministic"
            )
            let figures = (try BudgetFigures(contentsOf: before), try BudgetFigures(contentsOf: after))
            try checkWorkloads([figures.0.workload], [figures.1.workload])
            comparison = try RunComparison(baseline: figures.0, current: figures.1, thresholds: thresholds)
        case .instructions:
            let (before, after) = try oneASide(
                baseline,
                current,
                .instructions,
                "count",
                why: "a count does not vary run to run"
            )
            comparison = try RunComparison(
                baseline: InstructionCounts(contentsOf: before),
                current: InstructionCounts(contentsOf: after),
                thresholds: thresholds,
                allowingDifferentWorkloads: allowDifferentWorkloads
            )
        case .speed, .counts:
            comparison = try runs(baseline, current, thresholds)
        }
        for (path, text) in [(markdown, comparison.markdown), (junit, comparison.junitXML)] {
            guard let path else { continue }
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw CommandLineError.runtime("cannot write \(path): \(error.localizedDescription)")
            }
        }
        Console.out(String(comparison.text.dropLast()))
        if !comparison.passed { throw ExitCode(ExitStatus.gateFailed) }
    }

    /// Refuses sides whose workloads differ, in one line naming what differs, unless
    /// `--allow-different-workloads`, which warns instead.
    func checkWorkloads(_ baseline: [ComparedWorkload?], _ current: [ComparedWorkload?]) throws {
        guard
            let difference = ComparedWorkload.difference(
                baseline: baseline.compactMap { $0 },
                current: current.compactMap { $0 }
            )
        else { return }
        guard allowDifferentWorkloads else {
            throw ComparisonError("\(difference); give --allow-different-workloads to judge them anyway")
        }
        Console.err("warning: \(difference); judged anyway (--allow-different-workloads)")
    }

    /// The runs of each side, from the arguments or the repeatable options.
    private func sides() throws -> (baseline: [String], current: [String]) {
        if !runs.isEmpty {
            guard baselines.isEmpty, currents.isEmpty else {
                throw ComparisonError("give BASELINE CURRENT, or --baseline and --current (several each), not both")
            }
            guard runs.count == 2 else {
                throw ComparisonError("give BASELINE CURRENT: two runs, not \(runs.count)")
            }
            return ([runs[0]], [runs[1]])
        }
        guard !baselines.isEmpty, !currents.isEmpty else {
            throw ComparisonError("nothing to compare: give BASELINE CURRENT, or --baseline and --current")
        }
        return (baselines, currents)
    }

    /// The one file of each side, for a `mode` that compares one `thing` a side; `why` says why
    /// one is enough.
    private func oneASide(
        _ baseline: [String],
        _ current: [String],
        _ mode: ComparisonThresholds.Mode,
        _ thing: String,
        why: String
    ) throws -> (String, String) {
        guard baseline.count == 1, current.count == 1 else {
            throw ComparisonError(
                "\(mode.rawValue) mode compares one \(thing) a side (\(why)), not \(baseline.count) and \(current.count)"
            )
        }
        return (baseline[0], current[0])
    }
}
