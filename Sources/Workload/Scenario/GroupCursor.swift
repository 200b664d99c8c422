/// One fan-out group under way: its activities' starts, then its timeline's steps, each sent to
/// every activity of the group in the stream's shard.
struct GroupCursor: Sendable {
    private let cohort: Int
    private let kind: ActivityKind
    private let group: Int
    private let members: Range<Int>
    private let inShard: Range<Int>
    private let startMs: Int64
    private let joinMs: Int64
    private let originMs: Int64
    private let limitMs: Int64?
    private let inputPushToken: Bool
    private let rotateFraction: Double
    private let rotationWithinMs: Int64
    private let priorities: [Int]
    private let delivery: Scenario.Delivery
    private let skipsUpdates: Bool
    private let seed: UInt64
    private var nextJoiner: Int
    private var timeline: ActivityTimeline
    private var random: SplitMix64
    private var step: TimelineStep?
    private var stepPriority = 10
    private var lastState: ContentState
    private var fanout: Int

    init(plan: CohortPlan, group: Int, members: Range<Int>, inShard: Range<Int>, startMs: Int64, scenario: Scenario) {
        let cohort = plan.cohort
        self.cohort = plan.index
        kind = cohort.kind
        self.group = plan.firstGroup + group
        self.members = members
        self.inShard = inShard
        self.startMs = startMs
        joinMs = cohort.joinSeconds * 1000
        originMs = startMs + joinMs
        limitMs = scenario.pastLimit == .end ? startMs + scenario.activeLimitSeconds * 1000 : nil
        inputPushToken = cohort.inputPushToken
        rotateFraction = cohort.rotateFraction
        rotationWithinMs = cohort.rotationWithinSeconds * 1000
        priorities = EventKind.allCases.map { cohort.priority(of: $0) }
        delivery = cohort.delivery
        skipsUpdates = cohort.updates == .none
        seed = scenario.seed
        nextJoiner = cohort.pushToStart ? inShard.lowerBound : inShard.upperBound
        random = SplitMix64(seed: scenario.seed ^ 0x5449_4D45_4C49_4E45, index: UInt64(self.group))
        timeline = ActivityTimeline(cohort.kind, random: &random)
        lastState = cohort.kind.initialState
        fanout = inShard.upperBound
        _ = advance()
    }

    /// Whether any event is left.
    var hasEvents: Bool { nextJoiner < inShard.upperBound || step != nil }

    /// The time of the cursor's next event and the group's id, which orders equal times.
    var key: (timeMs: Int64, order: Int) {
        (nextJoiner < inShard.upperBound ? joinTime(nextJoiner) : originMs + step!.offsetMs, group)
    }

    /// When activity `activity` starts: its place in the group, jittered, over the join window,
    /// so join times rise with the activity id.
    private func joinTime(_ activity: Int) -> Int64 {
        guard joinMs > 0 else { return startMs }
        var jitter = SplitMix64(seed: seed ^ 0x4A4F_494E_4A4F_494E, index: UInt64(activity))
        let position = (Double(activity - members.lowerBound) + jitter.nextUnit()) / Double(members.count)
        return startMs + Int64(position * Double(joinMs))
    }

    /// The next start event, or `nil` once every activity in the shard has started.
    mutating func nextStart() -> WorkloadEvent? {
        guard nextJoiner < inShard.upperBound else { return nil }
        let activity = nextJoiner
        nextJoiner += 1
        return WorkloadEvent(
            timeMs: joinTime(activity),
            activity: activity,
            group: group,
            cohort: cohort,
            activityKind: kind,
            kind: .start,
            phase: .start,
            priority: priorities[EventKind.start.ordinal],
            tokenKind: .pushToStart,
            tokenIndex: activity,
            state: kind.initialState,
            alert: true,
            inputPushToken: delivery == .token && inputPushToken,
            delivery: delivery,
            subscribers: activity..<(activity + 1),
            sentHere: true
        )
    }

    /// The current step for the next activity of the fan-out, or `nil` when all have it: one
    /// event per activity, or with broadcast one event for all of them, to the group's channel.
    mutating func nextFanout() -> WorkloadEvent? {
        guard fanout < inShard.upperBound, let step else { return nil }
        let activity = fanout
        fanout = delivery == .broadcast ? inShard.upperBound : fanout + 1
        let timeMs = originMs + step.offsetMs
        return WorkloadEvent(
            timeMs: timeMs,
            activity: activity,
            group: group,
            cohort: cohort,
            activityKind: kind,
            kind: step.kind,
            phase: step.phase,
            priority: stepPriority,
            tokenKind: delivery == .broadcast ? .channel : .activityUpdate,
            tokenIndex: delivery == .broadcast ? group : 2 * activity + (hasRotated(activity, at: timeMs) ? 1 : 0),
            state: step.state,
            alert: step.alert,
            inputPushToken: false,
            delivery: delivery,
            subscribers: delivery == .broadcast ? inShard : activity..<(activity + 1),
            sentHere: delivery == .token || inShard.lowerBound == members.lowerBound
        )
    }

    /// Whether `activity`'s update token has rotated by `timeMs`.
    private func hasRotated(_ activity: Int, at timeMs: Int64) -> Bool {
        guard rotateFraction > 0 else { return false }
        var draw = SplitMix64(seed: seed ^ 0x524F_5441_5445_2121, index: UInt64(activity))
        guard draw.nextUnit() < rotateFraction else { return false }
        return timeMs >= joinTime(activity) + Int64(draw.nextUnit() * Double(rotationWithinMs))
    }

    /// Moves to the timeline's next step and restarts the fan-out; `false` when the timeline is
    /// over. With the `end` past-limit policy a step at or after the limit becomes the `end`.
    mutating func advance() -> Bool {
        if let current = step {
            lastState = current.state
            if current.phase == .end {
                step = nil
                return false
            }
        }
        step = timeline.next(&random)
        // Starts and ends only: the skipped updates still move the state the end carries.
        while skipsUpdates, let skipped = step, skipped.phase == .update {
            lastState = skipped.state
            step = timeline.next(&random)
        }
        if let limitMs, let next = step, originMs + next.offsetMs >= limitMs {
            step = TimelineStep(offsetMs: limitMs - originMs, kind: .limit, phase: .end, state: lastState, alert: false)
        }
        guard let next = step else { return false }
        stepPriority = priorities[next.kind.ordinal]
        fanout = inShard.lowerBound
        return true
    }
}
