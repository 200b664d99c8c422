import Workload

/// Which event kinds a sender sends at priority 10 (the rest at 5), and what that costs and
/// buys under a budget: the figures a policy search compares.
public struct PriorityPolicy: Sendable, Equatable {
    /// The kinds sent at 10, sorted by name.
    public let kindsAt10: [EventKind]
    /// Priority-10 updates per activity (starts excluded: they take no priority-10 token).
    public let p10PerActivity: Double
    /// Share of key events shown within the target (never-shown ones count as misses).
    public let keyShareWithinTarget: Double
    /// Share of priority-10 updates throttled.
    public let throttledShare: Double

    /// The policy in words, `goal, kick-off at 10` or `nothing at 10`.
    public var summary: String {
        kindsAt10.isEmpty ? "nothing at 10" : kindsAt10.map(\.rawValue).joined(separator: ", ") + " at 10"
    }

    /// `scenario` with its cohorts' event kinds at 10 when in `kinds`, at 5 otherwise (starts
    /// and limit ends keep theirs).
    public static func apply(_ kinds: Set<EventKind>, to scenario: Scenario) -> Scenario {
        var copy = scenario
        for index in copy.cohorts.indices {
            for kind in copy.cohorts[index].kind.eventKinds {
                copy.cohorts[index].priorities[kind] = kinds.contains(kind) ? 10 : 5
            }
        }
        return copy
    }
}
