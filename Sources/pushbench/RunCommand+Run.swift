import Analysis
import ArgumentParser
import Budget
import BudgetReports
import Foundation
import Harness
import LoadEngine
import Reports
import Sampling
import Wire
import Workload

/// `pushbench run`'s steps: the load its flags describe, the target it goes to, what it says
/// before it sends, and the report of what it measured.
extension RunCommand {
    /// The scenario, pacing, connections and the rest as the engine takes them, and where its
    /// broadcast channels are made; checks those, memory and the reports folder before anything
    /// is written, and applies `--practice`.
    func loadConfiguration(toward target: RunTarget) throws -> (load: LoadConfiguration, channelOrigin: String?) {
        let realTokens = try destination.tokensFile.map(DeviceTokensFile.read)
        let workload = try self.workload.scenario(defaultActivities: 1000, tokens: realTokens?.count)
        let channelOrigin = try destination.channelManagementOrigin(for: workload, target: target)
        if !budget.noBudget {
            try MemoryCheck.ensureBudgetModel(
                of: workload.activities,
                needing: "the budget model of the accepted pushes",
                advice: "give fewer, share them out with --shard, or add --no-budget"
            )
        }
        if !dryRun {
            try reports.ensure()
            try gate.prepare()
        }
        var load = LoadConfiguration(
            transport: link.transportConfiguration(
                origin: destination.endpoint ?? "",
                verifyPeer: !destination.insecure
            ),
            transportKind: link.transport,
            scenario: workload,
            realTokens: realTokens,
            requests: limit.requests,
            duration: pace.duration?.duration,
            warmup: pace.warmup.duration,
            pacing: target.isApple && !pace.isPaced
                ? try .constantRate(perSecond: RunTarget.appleRateCap) : try pace.pacing(),
            threads: link.threads,
            bundleID: app.bundleID,
            priorityOverride: priority,
            tokenPolicy: jwtMode,
            retryPolicy: link.retryPolicy,
            reconnectBackoff: link.reconnectPolicy,
            shard: try ShardSelection.resolve(option: shard, environment: ProcessInfo.processInfo.environment)
        )
        load.startAtUnix = try StartInstant.resolve(
            option: startAt,
            environment: ProcessInfo.processInfo.environment,
            now: Date().timeIntervalSince1970
        )
        if let instant = load.startAtUnix {
            Console.err(
                "starting the schedule at \(Date(timeIntervalSince1970: instant).formatted(.iso8601)) "
                    + "(in \(String(format: "%.1f", instant - Date().timeIntervalSince1970)) s), with every shard"
            )
        }
        try applyPractices(to: &load, target: target)
        return (load, channelOrigin)
    }

    /// `--practice`: sender mistakes made on purpose, toward a mock only.
    private func applyPractices(to load: inout LoadConfiguration, target: RunTarget) throws {
        guard !practices.isEmpty else { return }
        guard !target.isApple else {
            throw ValidationError("--practice makes sender mistakes on purpose: point it at a mock, not at Apple")
        }
        do {
            let parsed = try practices.map { try SenderPractice(parsing: $0) { try? TimeSpan(parsing: $0).seconds } }
            try SenderPractice.apply(parsed, to: &load)
        } catch {
            throw ValidationError("--practice: \(error)")
        }
    }

    /// Where the session sends, with the endpoint's origin and trust set in `load`; `nil` after a
    /// `--dry-run` has printed the first requests instead.
    func sessionTarget(
        toward target: RunTarget,
        load: inout LoadConfiguration,
        tokens: ProviderTokenCache
    ) throws -> RunSession.Target? {
        guard case .endpoint(let origin, let isApple) = target else {
            if dryRun {
                load.transport.origin = "https://<embedded mock>"
                try printDryRun(load, keyID: tokens.keyID, teamID: tokens.teamID)
                return nil
            }
            return .embeddedMock(try embeddedMock.configuration())
        }
        load.transport.origin = origin
        load.transport.trustedCertificatesPEM = try destination.caFile.map(KeyFile.trustedCertificates)
        if dryRun {
            try printDryRun(load, keyID: tokens.keyID, teamID: tokens.teamID)
            return nil
        }
        let sharded = load.shard.count > 1
        if sharded && !isApple {
            Console.err("shard \(load.shard): other shards share the target, so its /stats are not compared here")
        }
        return .endpoint(comparesStats: !isApple && !sharded)
    }

    /// Says what the run sends, to whom and how, and when the scenario holds fewer pushes than
    /// `--requests` asks for.
    func announce(_ load: LoadConfiguration) {
        let workload = load.scenario
        let shardActivities = load.shardActivities
        Console.err(
            "sending the \(workload.name) scenario's pushes to "
                + (load.shard.count > 1
                    ? "activities \(shardActivities.lowerBound)..<\(shardActivities.upperBound) of \(workload.activities) (shard \(load.shard))"
                    : "\(workload.activities) activities")
                + (load.shardRequests.map { " (at most \($0))" } ?? "")
                + ", \(load.pacing.label), from \(link.threads) worker(s) "
                + "over \(link.connections) connection(s) × \(link.streams) streams to "
                + (load.transport.origin.isEmpty ? "the embedded mock" : load.transport.origin)
        )
        if let cap = load.shardRequests, let held = try? load.pushesHeld(), held < cap {
            let activitiesNeeded = (workload.activities * cap + held - 1) / max(held, 1)
            Console.err(
                "note: the scenario holds \(held) pushes, fewer than --requests \(cap)\(load.shard.count > 1 ? " (this shard's share)" : ""): "
                    + "the run ends after those; about --activities \(activitiesNeeded) would hold \(cap)"
            )
        }
    }

    /// Prints the summary, the doctor's verdict and the budget line, and writes the report
    /// folder; returns the run's result, and whether every `--threshold` held.
    func report(
        _ outcome: RunSession.Outcome,
        load: LoadConfiguration,
        runID: String,
        budgetSource: String,
        baseline: RunFigures?,
        cpuSampling: Result<StackProfile, PerfUnavailable>?
    ) throws -> (result: RunResult, thresholdsHeld: Bool) {
        let result = outcome.result
        var context = RunContext(
            runID: runID + (load.shard.count > 1 ? "-shard-\(load.shard.index)-of-\(load.shard.count)" : ""),
            commandLine: CommandLine.arguments.joined(separator: " "),
            targetDescription: outcome.targetDescription,
            serverCounts: outcome.serverCounts,
            build: PushBench.build
        )
        context.practices = outcome.practices
        context.cpuSampling = cpuSampling
        context.judge = try gate.judge(for: .run)
        Console.out(SummaryTable.render(result, context: context))
        if Console.isQuiet, let failure = RunFailure(result) { Console.failure("FAILED: \(failure.headline)") }
        if let practices = outcome.practices { Console.out("sender doctor  \(practices.verdict)") }
        if let cpuSampling { Console.out(PerfOptions.summaryLine(cpuSampling)) }
        let budgetReport = outcome.budget.map {
            BudgetReport(
                result: $0.finish(
                    name: "accepted pushes of run \(context.runID)",
                    tookEveryEvent: result.tookEveryEvent
                ),
                recommendations: nil,
                parametersSource: budgetSource,
                runID: context.runID,
                commandLine: context.commandLine
            )
        }
        if let budgetReport { Console.out(budgetReport.consoleLine) }
        let written: ReportWriter.Written
        do {
            written = try ReportWriter.write(
                result,
                context: context,
                directory: reports.folder(runID: context.runID),
                budget: budgetReport,
                comparison: try BaselineOption.compare(result, context: context, with: baseline)
            )
        } catch {
            throw CommandLineError.runtime("\(error) (the summary above is complete)")
        }
        let held = try gate.finish(written, suite: "pushbench run")
        Console.always("report: \(written.htmlPath)")
        return (result, held)
    }

    /// `--dry-run`: the first requests, as the target would get them, bearer redacted.
    func printDryRun(_ load: LoadConfiguration, keyID: String, teamID: String) throws {
        let requests = try LoadTest.preview(load, keyID: keyID, teamID: teamID, count: 3)
        Console.out(
            "dry run: the first \(requests.count) requests of \(load.scenario.name) (\(load.scenario.activities) activities, "
                + "\(load.pacing.label)); nothing is sent\n\n" + requests.joined(separator: "\n\n")
        )
    }
}
