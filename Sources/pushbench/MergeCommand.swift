import ArgumentParser
import Foundation
import LoadEngine
import Reports
import Workload

/// `pushbench merge`: adds the shards of one run (`run --shard i/N` on many processes or
/// machines) up into one result and one report.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Add the shards of one run up exactly and write one report.",
        discussion: """
            Give every shard's summary.json (or report folder). Counts, reasons, retries and CPU add up; the \
            latency histograms add bucket by bucket, so the merged percentiles are those one process would have \
            measured. Time is wall-clock: the run spans the earliest shard's start to the last shard's end, and each \
            shard's seconds join the merged second they fell in. The shards must be of one run (same scenario, seed \
            and pacing) and all present: a merge of part of a run would understate it.

              pushbench merge shard-*/ -o Reports/final-merged
              pushbench merge s0/summary.json s1/summary.json --server-stats mock-stats.json -o merged

            Shards that share a PushBench mock do not compare its /stats each (the others' pushes are in them); \
            save the mock's /stats after they ran (curl .../stats > mock-stats.json, from a mock only they used) and \
            give it as --server-stats to check the merged books against it.
            """
    )

    @Argument(help: "Every shard's summary.json or report folder.")
    var results: [String] = []

    @Option(name: [.customShort("o"), .customLong("output")], help: "The folder to write the merged report into.")
    var output: String

    @Option(
        name: .customLong("server-stats"),
        help: "A PushBench mock's GET /stats saved after the shards ran, to check the merged books against."
    )
    var serverStats: String?

    @Option(
        name: .customLong("max-start-skew"),
        help: "Refuse shards given one --start-at whose schedules started further apart than this (default 1s)."
    )
    var maxStartSkew = TimeSpan(seconds: 1)

    @OptionGroup
    var baseline: BaselineOption

    func validate() throws {
        if results.isEmpty { throw ValidationError("give every shard's summary.json or report folder") }
    }

    func run() throws {
        let baselineFigures = try baseline.figures()
        try OutputPath.ensureFolder(output, flag: "--output")
        var shards: [RunResult] = []
        var firstContext: RunContext? = nil
        for path in results {
            let summary = try RunSummary.read(contentsOf: path)
            do {
                shards.append(try summary.runResult())
            } catch {
                throw SummaryError("\(path): \(error)")
            }
            if firstContext == nil { firstContext = summary.runContext }
        }
        try RunResult.checkSynchronizedStart(shards, maxSeconds: maxStartSkew.seconds)
        let merged = try RunResult.merged(shards)
        let skew = RunResult.startSkew(of: shards)
        Console.out(
            "start skew: \(String(format: "%.3f", skew.seconds * 1000)) ms between the shards' schedules "
                + "(shard \(skew.latest) last)"
                + (shards[0].configuration.startAtUnix != nil
                    ? ", all given one --start-at"
                    : "; without --start-at each started when its process did")
        )
        let context = RunContext(
            runID: (output as NSString).lastPathComponent,
            commandLine: CommandLine.arguments.joined(separator: " "),
            targetDescription: "\(firstContext!.targetDescription), \(shards.count) shards merged",
            serverCounts: try serverStats.map(Self.serverCounts),
            build: firstContext!.build
        )
        Console.out(SummaryTable.render(merged, context: context))
        do {
            let written = try ReportWriter.write(
                merged,
                context: context,
                directory: output,
                comparison: try BaselineOption.compare(merged, context: context, with: baselineFigures)
            )
            Console.out("report: \(written.htmlPath)")
        } catch {
            throw CommandLineError.runtime("\(error) (the summary above is complete)")
        }
        if let server = context.serverCounts, !ServerCheck(result: merged, server: server).matches {
            throw CommandLineError("the merged books disagree with the mock's /stats (see the summary above)")
        }
    }

    private static func serverCounts(_ path: String) throws -> ServerCounts {
        guard let counts = ServerCounts(statsJSON: Array(try InputFile.bytes(path, what: "--server-stats file"))) else {
            throw CommandLineError("--server-stats \(path): not a PushBench mock's /stats JSON")
        }
        return counts
    }
}
