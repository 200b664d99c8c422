import Budget
import BudgetReports
import Harness
import LoadEngine
import Workload

/// A profile's budget: the events its sender got accepted, through the device budget model on
/// the scenario's clock, as `pushbench run` models its own accepted pushes.
extension SenderProfile {
    /// The budget report of the events this profile's sender got accepted, modelled with
    /// `preset`, as `profiler` handed them out.
    public func budgetReport(
        preset: BudgetParameters.Preset,
        profiler: SenderProfiler,
        runID: String,
        commandLine: String
    ) throws -> BudgetReport {
        let scenario = service?.workload.scenario ?? profiler.scenario
        let feed = BudgetFeed(
            parameters: preset.parameters,
            scenario: scenario,
            lanes: [0..<scenario.activities],
            clock: .scenario,
            sampleEvery: max(1, scenario.activities / 1000)
        )
        for (sequence, event) in try acceptedEvents(profiler: profiler).enumerated() {
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
                tookEveryEvent: profiler.requests.map { arrivals.events < $0 } ?? true
            ),
            recommendations: nil,
            parametersSource: preset.source,
            runID: runID,
            commandLine: commandLine
        )
    }

    /// The budget line of the first screen: `report`'s verdict, or, when the mock accepted pushes
    /// but none was an event of the scenario (a service's own welcome pushes, say), that, rather
    /// than "no push was accepted".
    public func budgetVerdict(_ report: BudgetReport) -> String {
        guard report.result.tally.pushes == 0, arrivals.accepted > 0 else { return report.verdict }
        return "None of the \(arrivals.accepted) accepted pushes was an event of the scenario (pushes the sender "
            + "chose on its own, to tokens or at times no event has), so the budget models none of them."
    }

    /// The scenario's events whose push the mock accepted, in scenario order, each at its
    /// scenario time with the `apns-priority` that push was really sent with: a sender's event by
    /// its number, a service's by its call's push to the event's activity. The budget is spent
    /// by what was sent, not by what the scenario asked for.
    private func acceptedEvents(profiler: SenderProfiler) throws -> AnySequence<WorkloadEvent> {
        if let service {
            let workload = service.workload
            return AnySequence(
                try workload.events().lazy.compactMap { call, event in
                    self.book.acceptedPriority(token: workload.updateToken(of: event.activity), identity: call)
                        .map { Self.event(event, sentAt: $0) }
                }
            )
        }
        let source = ScenarioPushSource(scenario: profiler.scenario, bundleID: profiler.bundleID)
        let events = try EventsFile.pushes(of: profiler.scenario, requests: profiler.requests)
        return AnySequence(
            events.enumerated().lazy.compactMap { number, event in
                self.book.acceptedPriority(token: source.tokens(for: event).hex(at: event.tokenIndex), identity: number)
                    .map { Self.event(event, sentAt: $0) }
            }
        )
    }

    /// `event` as it was sent: with `priority`.
    private static func event(_ event: WorkloadEvent, sentAt priority: Int) -> WorkloadEvent {
        var sent = event
        sent.priority = priority
        return sent
    }
}
