import Budget
import Harness
import LoadEngine
import Profiling
import Reports
import Workload

/// `pushbench profile`'s budget: the events a sender got accepted, through the device budget
/// model on the scenario's clock, as `pushbench run` models its own accepted pushes.
extension ProfileCommand {
    /// The budget report of `profile`'s accepted events, or `nil` with `--no-budget`.
    func budgetReport(_ profile: SenderProfile, profiler: SenderProfiler, runID: String) throws -> BudgetReport? {
        guard !budget.noBudget else { return nil }
        let preset = try BudgetParameters.preset(named: budget.budgetPreset)
        let scenario = profiler.scenario
        let feed = BudgetFeed(
            parameters: preset.parameters,
            scenario: scenario,
            lanes: [0..<scenario.activities],
            clock: .scenario,
            sampleEvery: max(1, scenario.activities / 1000)
        )
        let source = ScenarioPushSource(scenario: scenario, bundleID: profiler.bundleID)
        var answered: [String: Int] = [:]
        for (sequence, event) in try EventsFile.pushes(of: scenario, requests: profiler.requests).enumerated() {
            let token = source.tokens(for: event).hex(at: event.tokenIndex)
            let k = answered[token, default: 0]
            answered[token] = k + 1
            if profile.book.acceptedAnswer(token: token, k: k) {
                feed.receive(
                    AcceptedPush(
                        worker: 0,
                        event: event,
                        sequence: sequence,
                        settledBelow: sequence + 1,
                        timestampSeconds: event.timeMs / 1000,
                        answeredAtSimulatedMs: event.timeMs
                    )
                )
            }
        }
        return BudgetReport(
            result: feed.finish(
                name: "accepted pushes of profile \(runID)",
                tookEveryEvent: profiler.requests.map { profile.lag.events < $0 } ?? true
            ),
            recommendations: nil,
            parametersSource: preset.source,
            runID: runID,
            commandLine: CommandLine.arguments.joined(separator: " ")
        )
    }
}
