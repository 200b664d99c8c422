import Analysis
import ArgumentParser
import LoadEngine
import Reports

/// `--baseline`: a run this one is judged against in its summary and report, with the gate's
/// default limits (`pushbench compare` is the gate itself, with its exit codes).
struct BaselineOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A baseline run (its summary.json or report folder) to judge this one against in the report.",
            discussion: """
                The report gains a section with each figure, its change and its verdict at `pushbench compare`'s \
                default limits (throughput -5%, p99 +10%, errors 0.1%). It does not change the exit status: \
                `pushbench compare` is the CI gate.
                """
        )
    )
    var baseline: String?

    /// The baseline's figures, read before the run so a bad file fails at once.
    func figures() throws -> RunFigures? {
        guard let baseline else { return nil }
        do {
            return try RunFigures(contentsOf: baseline)
        } catch {
            throw CommandLineError("--baseline: \(error)")
        }
    }

    /// `result` judged against `baseline`, printed to stdout as well.
    static func compare(_ result: RunResult, context: RunContext, with baseline: RunFigures?) throws -> RunComparison? {
        guard let baseline else { return nil }
        let current = RunFigures(RunSummary(result, context: context))
        if let baselineWorkload = baseline.workload, let workload = current.workload,
            let difference = baselineWorkload.difference(from: workload)
        {
            Console.err("warning: against --baseline, \(difference): the judgement below compares unlike runs")
        }
        let comparison = RunComparison(baseline: [baseline], current: [current], thresholds: ComparisonThresholds())
        Console.out("against the baseline:\n" + comparison.text)
        return comparison
    }
}
