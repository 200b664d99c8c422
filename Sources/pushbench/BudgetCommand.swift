import ArgumentParser
import Budget
import BudgetReports
import Foundation
import LoadEngine
import Pages
import Reports
import Workload

/// `pushbench budget`: the device-side budget of a scenario, simulated offline.
struct BudgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "budget",
        abstract: "Simulate the iOS Live Activity budget for a scenario's pushes, offline, and report exhaustion.",
        discussion: """
            APNs answers 200 whether or not a device will show an update: iOS spends a per-activity budget on \
            priority-10 updates and silently throttles the rest. This runs every push of the scenario through \
            the device-side model of docs/budget-model.md in simulated time, as if APNs accepted \
            all of them: a priority-10 token bucket per activity (--bucket, --per-hour), low-priority windows that \
            show only their latest update (--low-priority-interval), frequent updates, a push-to-start bucket per \
            device, the 8-hour active limit, ends and stale timestamps.

            Apple publishes none of these numbers; the presets follow the evidence in \
            docs/apns.md §3.6 (conservative ≈4/h, community ≈15/h, frequent ≈ one per 15 s) \
            and every value can be overridden. Reports say so and print the values used.

            Writes <reports-dir>/<run-id>/: budget_summary.json, budget_timeline.csv (per simulated minute), \
            budget_by_event.csv, budget_display_lag.csv, budget_activities.csv (sampled activities) and \
            budget.html; --sweep adds budget_sweep.csv.

              pushbench budget --scenario football --activities 1000000 --preset community
              pushbench budget --scenario delivery --preset conservative \\
                  --per-hour 6 --key-lag-target 30s
              pushbench budget --scenario football --activities 100000 --sweep

            --traffic FILE replays what `pushbench mock --record FILE` recorded from any sender instead of a \
            scenario: point your own sender core at the mock, replay a match, and see where its update policy \
            exhausts the budget. Each start begins an activity on its push-to-start token's device; other pushes \
            belong to their token's activity.
            """
    )

    @OptionGroup(title: "The scenario")
    var workload: ScenarioOptions

    @Option(help: "Replay pushes recorded by `pushbench mock --record` instead of a scenario.")
    var traffic: String?

    @OptionGroup(title: "Budget model (a preset, and any value of it overridden)")
    var model: BudgetModelOptions

    @Option(
        name: .customLong("activities-per-device"),
        help: "Consecutive activities sharing a device and its push-to-start bucket."
    )
    var activitiesPerDevice = 1

    @Option(name: .customLong("threads"), help: "Worker threads (default: one per core).")
    var threadsGiven: Int?

    /// `--threads`, or one per core.
    var threads: Int { threadsGiven ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(
        name: .customLong("activities-csv"),
        help: "Which activities budget_activities.csv lists: sample (about --sample-size), all, or none."
    )
    var activitiesCSV = "sample"

    @Option(name: .customLong("sample-size"), help: "About how many activities the sample lists.")
    var sampleSize = 1000

    @Option(
        name: .customLong("key-lag-target"),
        help: "How soon key events (goals, whistles, status changes) should be shown."
    )
    var keyLagTarget = TimeSpan(seconds: 15)

    @Option(name: .customLong("key-share"), help: "Share of key events that must meet --key-lag-target.")
    var keyShare = 0.99

    @Option(name: .customLong("policy-sample"), help: "Activities the priority-policy search simulates per policy.")
    var policySample = 2000

    @Flag(name: .customLong("no-recommendations"), help: "Skip the steady-rate and priority-policy searches.")
    var noRecommendations = false

    @Flag(help: "Also run every preset under four policies (scenario, all-10, key-10, all-5) and compare them.")
    var sweep = false

    @OptionGroup var reports: ReportsFolderOptions

    func validate() throws {
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1 to 256") }
        guard activitiesPerDevice >= 1 else { throw ValidationError("--activities-per-device must be at least 1") }
        guard ["sample", "all", "none"].contains(activitiesCSV) else {
            throw ValidationError("--activities-csv must be sample, all or none, not '\(activitiesCSV)'")
        }
        guard sampleSize >= 1 else { throw ValidationError("--sample-size must be at least 1") }
        guard (0...1).contains(keyShare) else { throw ValidationError("--key-share must be between 0 and 1") }
        guard policySample >= 1 else { throw ValidationError("--policy-sample must be at least 1") }
        if traffic != nil && sweep { throw ValidationError("--sweep needs a scenario, not --traffic") }
        if traffic != nil && workload.delivery != nil {
            throw ValidationError("--delivery needs a scenario, not --traffic")
        }
    }

    func run() throws {
        let stop = StopFlag()
        let trap = InterruptTrap { stop.set() }
        defer { _ = trap }
        let (parameters, source) = try model.parameters()
        try reports.ensure()
        let (result, recommendations, simulation) =
            try traffic.map { try replay($0, parameters) } ?? simulate(parameters, stop: stop)
        let report = BudgetReport(
            result: result,
            recommendations: recommendations,
            parametersSource: source,
            runID: RunContext.makeRunID(),
            commandLine: CommandLine.arguments.joined(separator: " "),
            keyLagTargetSeconds: keyLagTarget.seconds
        )
        for line in BudgetConsole.lines(report) { Console.out(line) }
        let directory = try report.write(directory: reports.folder(runID: report.runID))
        if sweep, let simulation, !result.interrupted {
            let rows = try BudgetSweep(simulation: simulation).run { Console.err($0) }
            let table = BudgetConsole.sweepTable(rows, keyLagTargetSeconds: keyLagTarget.seconds)
            let path = (directory as NSString).appendingPathComponent("budget_sweep.csv")
            try ReportFile.save(Data(table.text.utf8), toPath: path)
            Console.out("sweep of every preset and policy (\(path)):")
            for line in table.alignedLines { Console.out("  " + line) }
        }
        if workload.delivery == .both, let simulation, !result.interrupted {
            var broadcast = simulation
            broadcast.scenario = simulation.scenario.delivered(by: .broadcast)
            Console.err("simulating the same scenario delivered by broadcast")
            let other = try broadcast.run(shouldStop: { stop.isSet })
            let table = BudgetConsole.deliveryTable([(.token, result), (.broadcast, other)])
            let path = (directory as NSString).appendingPathComponent("budget_delivery.csv")
            try ReportFile.save(Data(table.text.utf8), toPath: path)
            Console.out("per token against broadcast (\(path)):")
            for line in table.alignedLines { Console.out("  " + line) }
            if other.interrupted { try trap.throwIfInterrupted() }
        }
        Console.out("report: \((directory as NSString).appendingPathComponent("budget.html"))")
        if result.interrupted { try trap.throwIfInterrupted() }
    }

    private func sampleEvery(activities: Int) -> Int {
        switch activitiesCSV {
        case "all": 1
        case "none": 0
        default: max(1, activities / sampleSize)
        }
    }

    private func replay(
        _ path: String,
        _ parameters: BudgetParameters
    ) throws -> (BudgetResult, BudgetRecommendations?, BudgetSimulation?) {
        let replay = try TrafficReplay(path: path)
        Console.err(
            "replaying \(replay.records.count) Live Activity pushes from \(path) (\(replay.skipped) others or rejected skipped)"
        )
        let result = try replay.run(parameters: parameters, sampleEvery: sampleEvery(activities: replay.records.count))
        return (result, noRecommendations ? nil : BudgetRecommendations.steadyOnly(parameters), nil)
    }

    private func simulate(
        _ parameters: BudgetParameters,
        stop: StopFlag
    ) throws -> (BudgetResult, BudgetRecommendations?, BudgetSimulation?) {
        let loaded = try workload.scenario(defaultActivities: nil)
        try MemoryCheck.ensureBudgetModel(of: loaded.activities, needing: "the budget model", advice: "give fewer")
        let simulation = BudgetSimulation(
            scenario: loaded,
            parameters: parameters,
            activitiesPerDevice: activitiesPerDevice,
            threads: threads,
            sampleEvery: sampleEvery(activities: loaded.activities)
        )
        Console.err(
            "simulating \(loaded.name): \(loaded.activities) activities, preset \(parameters.name), \(threads) thread(s)"
        )
        let result = try simulation.run(
            shouldStop: { stop.isSet },
            progress: { Console.err(String(format: "  %.1f M pushes simulated", Double($0) / 1e6)) }
        )
        var recommendations: BudgetRecommendations? = nil
        if !noRecommendations && !result.interrupted {
            Console.err("searching the steady rate and the cheapest priority policy")
            recommendations = try BudgetRecommendations.compute(
                PriorityPolicySearch(
                    scenario: loaded,
                    parameters: parameters,
                    activitiesPerDevice: activitiesPerDevice,
                    sampleActivities: policySample,
                    keyLagTargetSeconds: keyLagTarget.seconds,
                    requiredShare: keyShare
                )
            )
        }
        return (result, recommendations, simulation)
    }
}
