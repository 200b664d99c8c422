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
        let scenario = profile.service?.workload.scenario ?? profiler.scenario
        let feed = BudgetFeed(
            parameters: preset.parameters,
            scenario: scenario,
            lanes: [0..<scenario.activities],
            clock: .scenario,
            sampleEvery: max(1, scenario.activities / 1000)
        )
        for (sequence, event) in try acceptedEvents(profile, profiler: profiler).enumerated() {
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

    /// The scenario's events whose push the mock accepted, in scenario order: a sender's, the
    /// token's k-th accepted answer for its k-th event; a service's, its call's push to the
    /// event's activity.
    private func acceptedEvents(
        _ profile: SenderProfile,
        profiler: SenderProfiler
    ) throws -> AnySequence<WorkloadEvent> {
        if let service = profile.service {
            return AnySequence(
                try service.workload.events().lazy.filter {
                    service.book.accepted(call: $0.call, activity: $0.event.activity)
                }
                .map(\.event)
            )
        }
        let source = ScenarioPushSource(scenario: profiler.scenario, bundleID: profiler.bundleID)
        var answered: [String: Int] = [:]
        return AnySequence(
            try EventsFile.pushes(of: profiler.scenario, requests: profiler.requests).lazy.filter { event in
                let token = source.tokens(for: event).hex(at: event.tokenIndex)
                let k = answered[token, default: 0]
                answered[token] = k + 1
                return profile.book.acceptedAnswer(token: token, k: k)
            }
        )
    }
}
