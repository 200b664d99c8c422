import Workload

/// Finds the cheapest priority policy for a scenario (fewest priority-10 updates) that still
/// shows its key events quickly, by simulating candidate policies on a sample of activities.
///
/// Candidates are every subset of the scenario's event kinds, tried in order of cost (their
/// priority-10 updates per activity, counted from the scenario) until one shows at least
/// `requiredShare` of key events within `keyLagTargetSeconds`. A non-key kind can be worth
/// sending at 10: its shown state covers a key event still waiting in a low-priority window.
public struct PriorityPolicySearch: Sendable {
    /// The scenario, scaled to the sample.
    public let scenario: Scenario
    /// The budget.
    public let parameters: BudgetParameters
    /// Activities per device.
    public let activitiesPerDevice: Int
    /// The display lag key events must stay within, seconds.
    public let keyLagTargetSeconds: Double
    /// The share of key events that must be shown within it.
    public let requiredShare: Double

    /// What a search found.
    public struct Outcome: Sendable {
        /// The cheapest policy meeting the target, or `nil` when none does.
        public let recommended: PriorityPolicy?
        /// The scenario's own policy, for comparison.
        public let current: PriorityPolicy
        /// The best share any candidate reached, when none met the target.
        public let bestShare: Double
        /// Candidates simulated.
        public let tried: Int
    }

    /// At most this many event kinds are searched exhaustively (2^12 candidates).
    public static let maximumKinds = 12

    /// Creates a search on `sampleActivities` activities of `scenario`.
    public init(
        scenario: Scenario,
        parameters: BudgetParameters,
        activitiesPerDevice: Int = 1,
        sampleActivities: Int = 2000,
        keyLagTargetSeconds: Double = 15,
        requiredShare: Double = 0.99
    ) {
        self.scenario =
            scenario.activities > sampleActivities ? scenario.scaled(toActivities: sampleActivities) : scenario
        self.parameters = parameters
        self.activitiesPerDevice = activitiesPerDevice
        self.keyLagTargetSeconds = keyLagTargetSeconds
        self.requiredShare = requiredShare
    }

    /// Runs the search.
    /// - Throws: `BudgetError` when the scenario has too many event kinds, or what the
    ///   simulation throws.
    public func run() throws -> Outcome {
        let kinds = Array(Set(scenario.cohorts.flatMap(\.kind.eventKinds))).sorted()
        guard kinds.count <= Self.maximumKinds else {
            throw BudgetError("the policy search handles at most \(Self.maximumKinds) event kinds, not \(kinds.count)")
        }
        var perKind = [Int](repeating: 0, count: EventKind.allCases.count)
        for event in try ScenarioStream(scenario) where event.phase != .start { perKind[event.kind.ordinal] += 1 }
        let activities = Double(scenario.activities)
        let candidates = (0..<(1 << kinds.count)).map { mask in
            (0..<kinds.count).filter { mask & (1 << $0) != 0 }.map { kinds[$0] }
        }.sorted {
            let costs = ($0.reduce(0) { $0 + perKind[$1.ordinal] }, $1.reduce(0) { $0 + perKind[$1.ordinal] })
            return costs.0 != costs.1 ? costs.0 < costs.1 : $0.count < $1.count
        }
        var currentKinds: Set<EventKind> = []
        for cohort in scenario.cohorts {
            for kind in cohort.kind.eventKinds where cohort.priority(of: kind) > 5 { currentKinds.insert(kind) }
        }
        let current = try evaluate(currentKinds, scenario: scenario, activities: activities)
        var best = 0.0
        for (tried, candidate) in candidates.enumerated() {
            let policy = try evaluate(
                Set(candidate),
                scenario: PriorityPolicy.apply(Set(candidate), to: scenario),
                activities: activities
            )
            if policy.keyShareWithinTarget >= requiredShare {
                return Outcome(
                    recommended: policy,
                    current: current,
                    bestShare: policy.keyShareWithinTarget,
                    tried: tried + 1
                )
            }
            best = max(best, policy.keyShareWithinTarget)
        }
        return Outcome(recommended: nil, current: current, bestShare: best, tried: candidates.count)
    }

    private func evaluate(_ kinds: Set<EventKind>, scenario: Scenario, activities: Double) throws -> PriorityPolicy {
        let tally = try BudgetSimulation(
            scenario: scenario,
            parameters: parameters,
            activitiesPerDevice: activitiesPerDevice
        ).run().tally
        let startLabel = EventKind.start.ordinal
        let p10 = tally.labels.names.indices.reduce(0) {
            $0 + ($1 == startLabel ? 0 : tally.pushes(label: $1, priorityIndex: 0))
        }
        return PriorityPolicy(
            kindsAt10: kinds.sorted(),
            p10PerActivity: Double(p10) / activities,
            keyShareWithinTarget: tally.keyShareShown(withinMs: UInt64(keyLagTargetSeconds * 1000)),
            throttledShare: p10 > 0 ? Double(tally.count(.throttled)) / Double(p10) : 0
        )
    }
}
