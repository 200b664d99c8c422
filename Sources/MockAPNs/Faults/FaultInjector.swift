import Synchronization
import Wire
import Workload

/// Applies a `FaultPlan` to the pushes as they arrive: which are answered with an injected
/// error, and how long each answer waits. Shared by every connection; push `n` (in arrival
/// order) gets the same draws in every run with the same seed.
final class FaultInjector: Sendable {
    /// What to do with one push.
    struct Decision {
        /// The reason to answer instead of the validator's 200, if any.
        var injected: APNsReason?
        /// How long to hold the answer, nanoseconds.
        var delayNanos: UInt64
        /// Whether a stall is part of the delay.
        var stalled: Bool
    }

    let plan: FaultPlan
    private let startNanos: UInt64
    private let arrivals = Atomic<UInt64>(0)
    /// Cumulative error rates in a fixed order, so one uniform draw picks at most one reason.
    private let thresholds: [(APNsReason, Double)]

    init(plan: FaultPlan, startNanos: UInt64) {
        self.plan = plan
        self.startNanos = startNanos
        var total = 0.0
        thresholds = plan.errorRates.sorted { $0.key.rawValue < $1.key.rawValue }.map { reason, rate in
            total += rate
            return (reason, total)
        }
    }

    /// The decision for a push arriving at `nowNanos` (monotonic) that the validator accepted
    /// (`valid`) or rejected.
    func decide(nowNanos: UInt64, valid: Bool) -> Decision {
        let arrival = arrivals.wrappingAdd(1, ordering: .relaxed).oldValue
        var random = SplitMix64(seed: plan.seed ^ 0x4641_554C_5453_2121, index: arrival)
        var injected: APNsReason? = nil
        let draw = random.nextUnit()
        if valid, let hit = thresholds.first(where: { draw < $0.1 }) { injected = hit.0 }
        var due = nowNanos + UInt64(plan.latency.sample(&random) * 1000)
        var stalled = false
        if let stall = plan.stall {
            let period = UInt64(stall.everySeconds * 1e9)
            let length = UInt64(stall.seconds * 1e9)
            let offset = (due &- startNanos) % period
            if offset >= period - length {
                due += period - offset
                stalled = true
            }
        }
        return Decision(injected: injected, delayNanos: due - nowNanos, stalled: stalled)
    }
}
