import Workload

/// The fastest steady priority-10 cadence the model never throttles, found by running the
/// model itself (not a formula), so it stays right when the rules or parameters change.
public struct SteadyRate: Sendable, Equatable {
    /// How long the activity lives, seconds.
    public let durationSeconds: Int
    /// Whether the activity has frequent updates.
    public let frequent: Bool
    /// The shortest whole-second interval between priority-10 updates that never throttles.
    public let intervalSeconds: Int

    /// The same as updates per hour.
    public var perHour: Double { 3600 / Double(intervalSeconds) }

    /// Searches the interval for an activity of `durationSeconds` (capped at the active limit).
    ///
    /// A longer interval never throttles more (fewer pushes, more refill between them), so a
    /// binary search over 1 s to the duration finds the shortest one that never throttles.
    public static func search(parameters: BudgetParameters, frequent: Bool, durationSeconds: Int) -> SteadyRate {
        var parameters = parameters
        parameters.frequentUpdates = frequent
        parameters.frequentOffFraction = 0
        let duration = min(durationSeconds, Int(parameters.activeLimitSeconds))
        func neverThrottles(_ interval: Int) -> Bool {
            var model = BudgetModel(
                parameters: parameters,
                activities: 0..<1,
                devices: 0..<1,
                labels: .phases,
                seed: 0
            )
            for second in stride(from: 0, to: duration, by: interval) {
                model.receive(
                    BudgetPush(
                        timeMs: Int64(second) * 1000,
                        activity: 0,
                        device: 0,
                        phase: .update,
                        priority: 10,
                        timestampSeconds: Int64(second),
                        label: PushLabels.phaseLabel(.update)
                    )
                )
            }
            return model.finish().count(.throttled) == 0
        }
        var low = 1
        var high = max(1, duration)
        while low < high {
            let middle = (low + high) / 2
            if neverThrottles(middle) { high = middle } else { low = middle + 1 }
        }
        return SteadyRate(durationSeconds: duration, frequent: frequent, intervalSeconds: low)
    }
}
