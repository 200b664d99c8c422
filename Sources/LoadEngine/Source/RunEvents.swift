import Workload

/// The events a worker sends, in order: its share of the scenario, or for a burst one event per
/// activity (one per group for a broadcast cohort), all due at once.
struct RunEvents {
    private let scenario: Scenario
    /// Whether any cohort broadcasts: a per-token burst then never looks its groups up.
    private let broadcasts: Bool
    private var stream: ScenarioStream?
    /// A burst: `template` (the scenario's first event of the burst's kind) for each activity.
    private var template: WorkloadEvent?
    private var activities: Range<Int>
    private var nextActivity: Int

    /// The events of `activities` under `pacing`.
    /// - Throws: `WorkloadError` when the scenario is invalid or has no event of a burst's kind.
    init(_ scenario: Scenario, activities: Range<Int>, pacing: Pacing) throws {
        self.scenario = scenario
        broadcasts = scenario.cohorts.contains { $0.delivery == .broadcast }
        self.activities = activities
        nextActivity = activities.lowerBound
        if case .burst(let kind) = pacing {
            template = try Self.template(of: kind, in: scenario)
        } else {
            stream = try ScenarioStream(scenario, activities: activities)
        }
    }

    mutating func next() -> WorkloadEvent? {
        guard var event = template else { return stream?.next() }
        guard nextActivity < activities.upperBound else { return nil }
        if broadcasts, let group = scenario.broadcastGroup(containing: nextActivity) {
            let subscribers = group.activities.clamped(to: nextActivity..<activities.upperBound)
            event.delivery = .broadcast
            event.tokenKind = .channel
            event.group = group.group
            event.tokenIndex = group.group
            event.subscribers = subscribers
        } else {
            event.delivery = .token
            event.tokenKind = .activityUpdate
            event.tokenIndex = 2 * nextActivity
            event.subscribers = nextActivity..<(nextActivity + 1)
        }
        event.activity = nextActivity
        event.sentHere = true
        nextActivity = event.subscribers.upperBound
        return event
    }

    /// A per-token burst: the events not yet taken; `nil` for a scenario's stream, or a burst
    /// that broadcasts to groups (whose sizes would have to be read ahead).
    var burstEventsLeft: Int? {
        guard template != nil, !broadcasts else { return nil }
        return activities.upperBound - nextActivity
    }

    /// The first `kind` update activity 0 gets: what every activity gets in a burst.
    /// - Throws: `WorkloadError` when the scenario never sends one.
    static func template(of kind: EventKind, in scenario: Scenario) throws -> WorkloadEvent {
        var first = try ScenarioStream(scenario, activities: 0..<1)
        while let event = first.next() {
            if event.kind == kind && event.phase != .start { return event }
        }
        throw WorkloadError("the \(scenario.name) scenario sends no \(kind.rawValue) update to burst")
    }
}
