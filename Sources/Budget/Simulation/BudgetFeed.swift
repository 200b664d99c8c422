import Workload

/// Feeds a load run's accepted pushes into the budget model as they are answered, so `pushbench
/// run` can say what the devices would have shown of what the target accepted.
///
/// Each push is an `update` to its own activity (the run's synthetic activity `tag`), at the
/// moment it was answered; its `aps.timestamp` is the caller's clock in seconds.
public final class BudgetFeed {
    private var model: BudgetModel?
    private let parameters: BudgetParameters
    private let activities: Int
    private var originMs: Int64?
    private var pushes = 0

    /// Creates a feed for `activities` activities.
    public init(parameters: BudgetParameters, activities: Int, sampleEvery: Int = 0) {
        self.parameters = parameters
        self.activities = activities
        model = BudgetModel(
            parameters: parameters,
            activities: 0..<max(activities, 1),
            devices: 0..<max(activities, 1),
            labels: .phases,
            seed: 0,
            sampleEvery: sampleEvery
        )
    }

    /// Applies one accepted push to `activity`, answered at `answeredAtMs` (any monotonic
    /// clock, non-decreasing), at `priority`.
    public func receive(activity: Int, answeredAtMs: Int64, priority: Int, timestampSeconds: Int64) {
        let origin = originMs ?? answeredAtMs
        originMs = origin
        pushes += 1
        model?.receive(
            BudgetPush(
                timeMs: answeredAtMs - origin,
                activity: activity,
                device: activity,
                phase: .update,
                priority: priority,
                timestampSeconds: timestampSeconds,
                label: PushLabels.phaseLabel(.update)
            )
        )
    }

    /// Ends the feed and returns what the model counted, named `name` in reports.
    public func finish(name: String) -> BudgetResult {
        let tally = model.take()!.finish()
        return BudgetResult(
            input: .run,
            name: name,
            activities: activities,
            seed: nil,
            parameters: parameters,
            activitiesPerDevice: 1,
            threads: 1,
            wallSeconds: 0,
            tally: tally
        )
    }
}
