import Analysis
import ArgumentParser
import Foundation
import Pages
import Reports

/// What a CI job reads of a run or a profile: absolute thresholds it is gated on, their JUnit
/// file, a copy of `summary.json` at a known path, and a quiet screen. One group, so `run` and
/// `profile` gate the same way.
struct GateOptions: ParsableArguments {
    @Option(
        name: .customLong("threshold"),
        help: ArgumentHelp(
            "Fail (exit 1, after the report is written) unless a figure holds, such as 'p99<250ms' (repeatable).",
            discussion:
                "METRIC OP VALUE, OP one of < <= > >= == !=. Times take us, ms, s or m; shares %; rates /s; counts a whole number. docs/cli.md lists every metric; an unknown one is refused with the list.",
            valueName: "expr"
        )
    )
    var thresholds: [String] = []

    @Option(name: .customLong("junit"), help: "Write the thresholds' verdicts as JUnit XML to this file.")
    var junit: String?

    @Option(name: .customLong("summary-json"), help: "Write summary.json to this path too.")
    var summaryJSON: String?

    @Flag(help: "Print only failures and the report's path.")
    var quiet = false

    func validate() throws {
        if junit != nil && thresholds.isEmpty {
            throw ValidationError("--junit writes the verdicts of --threshold: give at least one")
        }
    }

    /// The thresholds, parsed for the metrics of `kind`; a malformed one is a malformed
    /// command line, named with what is taken.
    func parsed(for kind: ThresholdMetric.Kind) throws -> [AbsoluteThreshold] {
        do {
            return try thresholds.map { try AbsoluteThreshold(parsing: $0, for: kind) }
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Checks the output paths before any work, and turns the screen quiet.
    func prepare() throws {
        for case let (path?, flag) in [(junit, "--junit"), (summaryJSON, "--summary-json")] {
            try OutputPath.ensureFile(path, flag: flag)
        }
        if quiet { Console.quiet() }
    }

    /// The judge a report's context carries, so its verdicts go into `summary.json`.
    func judge(for kind: ThresholdMetric.Kind) throws -> (@Sendable (RunSummary) -> [RunSummary.ThresholdVerdict])? {
        let thresholds = try parsed(for: kind)
        guard !thresholds.isEmpty else { return nil }
        return { summary in thresholds.map { $0.verdict(on: summary) } }
    }

    /// After the report is written: prints the verdicts, writes the JUnit file and the summary's
    /// copy, and says whether every threshold held.
    func finish(_ written: ReportWriter.Written, suite: String) throws -> Bool {
        let verdicts = written.summary.thresholds ?? []
        for verdict in verdicts {
            verdict.passed
                ? Console.out("threshold  " + verdict.line) : Console.failedResult("threshold  " + verdict.line)
        }
        var files: [(String, Data)] = []
        if let junit {
            files.append((junit, Data(RunSummary.ThresholdVerdict.junitXML(verdicts, suite: suite).utf8)))
        }
        if let summaryJSON { files.append((summaryJSON, try written.summary.encoded())) }
        for (path, data) in files {
            do {
                try ReportFile.save(data, toPath: path)
            } catch {
                throw CommandLineError.runtime("\(error) (the report is in \(written.directory))")
            }
        }
        return verdicts.allSatisfy(\.passed)
    }
}
