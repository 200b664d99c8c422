import Workload

/// What the model advises a sender, computed by running it: the fastest steady priority-10
/// cadence that never throttles, and the cheapest priority policy that keeps key events quick.
public struct BudgetRecommendations: Sendable {
    /// Steady cadences for a one-hour activity and for one that lives the whole active limit,
    /// with and (when the app asks for them) without frequent updates.
    public let steadyRates: [SteadyRate]
    /// The policy search's result.
    public let policy: PriorityPolicySearch.Outcome
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
        let parameters = search.parameters
        let frequentChoices = parameters.frequentUpdates ? [true, false] : [false]
        let steady = frequentChoices.flatMap { frequent in
            [3600, Int(parameters.activeLimitSeconds)].map {
                SteadyRate.search(parameters: parameters, frequent: frequent, durationSeconds: $0)
            }
        }
        return BudgetRecommendations(
            steadyRates: steady,
            policy: try search.run(),
            keyLagTargetSeconds: search.keyLagTargetSeconds,
            requiredShare: search.requiredShare,
            sampleActivities: search.scenario.activities
        )
    }
}
