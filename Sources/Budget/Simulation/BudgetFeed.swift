import Workload

/// Feeds a load run's accepted pushes into the budget model as they are answered, so `pushbench
/// run` can say what the devices would have shown of what the target accepted.
///
/// The run's workers each own a share of the activities, so the feed keeps one model per share
/// (a lane) and each worker's thread feeds only its own lane: no locks on the way, and the
/// tallies merge exactly at the end. Each activity is on its own device.
public final class BudgetFeed: @unchecked Sendable {
    /// One worker's model; touched only from that worker's thread until `finish`.
    private final class Lane {
        var model: BudgetModel?
        init(_ model: consuming BudgetModel) { self.model = .some(model) }
    }

    private let lanes: [Lane]
    private let parameters: BudgetParameters
    private let labels: PushLabels
    private let scenario: Scenario

    /// Creates a feed for `scenario`'s activities, `lanes` being each worker's share of them.
    public init(parameters: BudgetParameters, scenario: Scenario, lanes: [Range<Int>], sampleEvery: Int = 0) {
        self.parameters = parameters
        self.scenario = scenario
        let labels = PushLabels.eventKinds(keysOf: scenario.cohorts.map(\.kind))
        self.labels = labels
        self.lanes = lanes.map { activities in
            Lane(
                BudgetModel(
                    parameters: parameters,
                    activities: activities,
                    devices: activities,
                    labels: labels,
                    seed: scenario.seed,
                    sampleEvery: sampleEvery
                )
            )
        }
    }

    /// Applies `event`, accepted at `timeMs` on the scenario's clock (non-decreasing within a
    /// lane) with `aps.timestamp` `timestampSeconds`, to lane `lane`'s model. Call it only from
    /// the thread that owns the lane.
    public func receive(_ event: WorkloadEvent, lane: Int, timeMs: Int64, priority: Int, timestampSeconds: Int64) {
        lanes[lane].model?.receive(
            BudgetPush(
                timeMs: timeMs,
                activity: event.activity,
                device: event.activity,
                phase: event.phase,
                priority: priority,
                timestampSeconds: timestampSeconds,
                label: event.kind.ordinal
            )
        )
    }

    /// Ends the feed, once every lane's thread is done, and returns what the models counted,
    /// named `name` in reports.
    public func finish(name: String) -> BudgetResult {
        var tally = BudgetTally(labels: labels)
        for lane in lanes {
            if let model = lane.model.take() { tally.merge(model.finish()) }
        }
        return BudgetResult(
            input: .run,
            name: name,
            activities: scenario.activities,
            seed: scenario.seed,
            parameters: parameters,
            activitiesPerDevice: 1,
            threads: lanes.count,
            wallSeconds: 0,
            tally: tally
        )
    }
}
