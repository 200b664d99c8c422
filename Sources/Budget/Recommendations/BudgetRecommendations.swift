import Workload

/// What the model advises a sender, computed by running it: the fastest steady priority-10
/// cadence that never throttles, and the cheapest priority policy that keeps key events quick.
public struct BudgetRecommendations: Sendable {
    /// Steady cadences for a one-hour activity and for one that lives the whole active limit,
    /// with and (when the app asks for them) without frequent updates.
    public let steadyRates: [SteadyRate]
    /// The policy search's result; `nil` for recorded traffic, which has no event kinds to
    /// re-prioritize.
    public let policy: PriorityPolicySearch.Outcome?
    /// The search's key-event display-lag target, seconds.
    public let keyLagTargetSeconds: Double
    /// The share of key events that must meet it.
    public let requiredShare: Double
    /// Activities the policy search simulated.
    public let sampleActivities: Int

    /// Computes the recommendations: steady cadences under the search's parameters, and the
    /// search's policy.
    /// - Throws: what the policy search throws.
    public static func compute(_ search: PriorityPolicySearch) throws -> BudgetRecommendations {
        BudgetRecommendations(
            steadyRates: steadyRates(search.parameters),
            policy: try search.run(),
            keyLagTargetSeconds: search.keyLagTargetSeconds,
            requiredShare: search.requiredShare,
            sampleActivities: search.scenario.activities
        )
    }

    /// The steady cadences alone, for traffic that has no scenario to search policies in.
    public static func steadyOnly(_ parameters: BudgetParameters) -> BudgetRecommendations {
        BudgetRecommendations(
            steadyRates: steadyRates(parameters),
            policy: nil,
            keyLagTargetSeconds: 0,
            requiredShare: 0,
            sampleActivities: 0
        )
    }

    private static func steadyRates(_ parameters: BudgetParameters) -> [SteadyRate] {
        let frequentChoices = parameters.frequentUpdates ? [true, false] : [false]
        return frequentChoices.flatMap { frequent in
            [3600, Int(parameters.activeLimitSeconds)].map {
                SteadyRate.search(parameters: parameters, frequent: frequent, durationSeconds: $0)
            }
        }
    }
}
