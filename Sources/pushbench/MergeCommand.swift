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
            and pacing) and all present and complete: a merge of part of a run would understate it. --partial merges \
            them all the same (a pod was lost, and the rest is all there is): the report names the shards missing or \
            interrupted, and merge exits 5.

              pushbench merge shard-*/ -o Reports/final-merged
              pushbench merge s0/summary.json s1/summary.json \\
                  --server-stats mock-stats.json -o merged

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
        help: "Refuse shards given one --start-at whose schedules started further apart than this."
    )
    var maxStartSkew = TimeSpan(seconds: 1)

    @Flag(
        help: ArgumentHelp(
            "Merge even if a shard is missing or was interrupted: the report says it is partial and names them; exit 5.",
            discussion:
                "With --server-stats the mock's books then exceed the merged ones by what the missing shards sent; its pushes_by_client_address says what each sending host sent."
        )
    )
    var partial = false

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
        let merged = try RunResult.merged(shards, partial: partial)
        let gaps = merged.shardGaps
        if let gaps {
            Console.out("PARTIAL: \(shards.count) of \(gaps.count) shards given, \(gaps): not the whole run")
        }
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
            targetDescription: "\(firstContext!.targetDescription), "
                + (gaps.map { "PARTIAL: \(shards.count) of \($0.count) shards merged (\($0))" }
                    ?? "\(shards.count) shards merged"),
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
        try judge(merged, against: context.serverCounts)
    }

    /// Fails a merge whose books disagree with the mock's, and a partial one whatever they say
    /// (`ExitStatus.partialResult`): its books fall short of the mock's by what the missing shards
    /// sent, which is said.
    private func judge(_ merged: RunResult, against server: ServerCounts?) throws {
        let check = server.map { ServerCheck(result: merged, server: $0) }
        guard let gaps = merged.shardGaps else {
            if let check, !check.matches {
                throw CommandLineError("the merged books disagree with the mock's /stats (see the summary above)")
            }
            return
        }
        if let check, let server {
            let extra = server.pushes - check.clientAnswered
            Console.out(
                extra >= 0
                    ? "the mock answered \(extra) more pushes than the merged shards (\(server.pushes) against "
                        + "\(check.clientAnswered))"
                        + (gaps.missing.isEmpty ? "" : ": what the missing shards sent before they were lost")
                    : "the mock answered \(-extra) fewer pushes than the merged shards (\(server.pushes) against "
                        + "\(check.clientAnswered)): the shards are not of this mock's run"
            )
        }
        Console.err("pushbench: merged part of a run (\(gaps)); the report says so")
        throw ExitCode(ExitStatus.partialResult)
    }

    private static func serverCounts(_ path: String) throws -> ServerCounts {
        guard let counts = ServerCounts(statsJSON: Array(try InputFile.bytes(path, what: "--server-stats file"))) else {
            throw CommandLineError("--server-stats \(path): not a PushBench mock's /stats JSON")
        }
        return counts
    }
}
