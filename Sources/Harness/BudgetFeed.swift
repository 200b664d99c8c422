import Budget
import HeapModule
import LoadEngine
import Workload

/// Feeds a load run's accepted pushes into the budget model as they are answered, so `pushbench
/// run` can say what the devices would have shown of what the target accepted.
///
/// The run's workers each own a share of the activities, so the feed keeps one model per share
/// (a lane) and each worker's thread feeds only its own lane: no locks on the way, and the
/// tallies merge exactly at the end. Each activity is on its own device.
///
/// On the scenario's clock, a lane holds each accepted push until every earlier event of its
/// worker has ended (`AcceptedPush.settledBelow`), then hands them to the model in scenario
/// order, so the model sees what `pushbench budget` sees of the same scenario. On the run's
/// clock, pushes go to the model as they are answered.
public final class BudgetFeed: @unchecked Sendable {
    /// One worker's model; touched only from that worker's thread until `finish`.
    private final class Lane {
        var model: BudgetModel?
        /// Accepted pushes waiting for the earlier events of their worker to end.
        var held = Heap<HeldPush>()
        var firstMs = Int64.max
        var lastMs = Int64.min

        init(_ model: consuming BudgetModel) { self.model = .some(model) }

        /// Applies `push` to its activity, or a broadcast to each of its `subscribers`.
        func apply(_ push: BudgetPush, subscribers: Range<Int>?) {
            firstMs = min(firstMs, push.timeMs)
            lastMs = max(lastMs, push.timeMs)
            guard let subscribers else {
                model?.receive(push)
                return
            }
            var delivery = push
            for activity in subscribers {
                delivery.activity = activity
                delivery.device = activity
                model?.receive(delivery)
            }
            model?.countBroadcast(deliveries: subscribers.count, sent: true)
        }

        /// Applies the held pushes numbered below `sequence`, in their order.
        func release(below sequence: Int) {
            while let first = held.min, first.sequence < sequence {
                let next = held.removeMin()
                apply(next.push, subscribers: next.subscribers)
            }
        }
    }

    /// An accepted push, ordered by its event's number among its worker's.
    private struct HeldPush: Comparable {
        let sequence: Int
        let push: BudgetPush
        /// A broadcast's subscribers, all in the worker's lane, which keeps a group whole.
        let subscribers: Range<Int>?

        static func < (left: HeldPush, right: HeldPush) -> Bool { left.sequence < right.sequence }
        static func == (left: HeldPush, right: HeldPush) -> Bool { left.sequence == right.sequence }
    }

    /// The most activities whose whole scenario a partial run streams again to say what its
    /// budget covers: a football final's million is about 107 M events, three seconds.
    static let countsWholeScenarioUpTo = 1_000_000

    /// When the pushes reach the devices.
    public let clock: BudgetClock
    private let lanes: [Lane]
    private let activities: Range<Int>
    private let parameters: BudgetParameters
    private let labels: PushLabels
    private let scenario: Scenario
    private let priorityOverride: Int?

    /// Creates a feed for `scenario`'s activities, `lanes` being each worker's share of them.
    ///
    /// - Parameters:
    ///   - priorityOverride: the run's `--priority`, which every push was sent with.
    ///   - sampleEvery: keep a record of every activity whose index is a multiple of this.
    public init(
        parameters: BudgetParameters,
        scenario: Scenario,
        lanes: [Range<Int>],
        clock: BudgetClock = .scenario,
        priorityOverride: Int? = nil,
        sampleEvery: Int = 0
    ) {
        self.parameters = parameters
        self.scenario = scenario
        self.clock = clock
        self.priorityOverride = priorityOverride
        activities = (lanes.first?.lowerBound ?? 0)..<(lanes.last?.upperBound ?? 0)
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

    /// Takes `accepted` into its worker's lane. Call it only from the thread that owns the lane
    /// (the engine's `onAccepted` does).
    public func receive(_ accepted: AcceptedPush) {
        let lane = lanes[accepted.worker]
        let event = accepted.event
        var push = BudgetPush(
            timeMs: event.timeMs,
            activity: event.activity,
            device: event.activity,
            phase: event.phase,
            priority: priorityOverride ?? event.priority,
            timestampSeconds: event.timeMs / 1000,
            label: event.kind.ordinal
        )
        let subscribers = event.broadcastSubscribers
        switch clock {
        case .scenario:
            lane.held.insert(HeldPush(sequence: accepted.sequence, push: push, subscribers: subscribers))
            lane.release(below: accepted.settledBelow)
        case .run:
            push.timeMs = accepted.answeredAtSimulatedMs
            push.timestampSeconds = accepted.timestampSeconds
            lane.apply(push, subscribers: subscribers)
        }
    }

    /// Ends the feed, once every lane's thread is done, and returns what the models counted,
    /// named `name` in reports. When the run left part of the scenario unsent
    /// (`tookEveryEvent` false), the scenario is streamed once more to say what the whole was.
    public func finish(name: String, tookEveryEvent: Bool = true) -> BudgetResult {
        var tally = BudgetTally(labels: labels)
        for lane in lanes {
            lane.release(below: .max)
            if let model = lane.model.take() { tally.merge(model.finish()) }
        }
        let first = lanes.map(\.firstMs).min() ?? .max
        let last = lanes.map(\.lastMs).max() ?? .min
        return BudgetResult(
            input: .run,
            name: name,
            activities: scenario.activities,
            seed: scenario.seed,
            parameters: parameters,
            activitiesPerDevice: 1,
            threads: lanes.count,
            wallSeconds: 0,
            tally: tally,
            runFeed: BudgetResult.RunFeed(
                clock: clock,
                spanMs: first <= last ? first...last : nil,
                partial: !tookEveryEvent,
                wholeScenario: tookEveryEvent ? nil : wholeScenario()
            )
        )
    }

    /// The pushes and last event time of the scenario over the run's activities; `nil` past
    /// `countsWholeScenarioUpTo` activities, whose stream would take seconds more at the end.
    private func wholeScenario() -> BudgetResult.RunFeed.WholeScenario? {
        guard activities.count <= Self.countsWholeScenarioUpTo,
            var stream = try? ScenarioStream(scenario, activities: activities)
        else { return nil }
        var pushes = 0
        var lastMs: Int64 = 0
        while let event = stream.next() {
            pushes += 1
            lastMs = event.timeMs
        }
        return .init(pushes: pushes, lastEventMs: lastMs)
    }
}
