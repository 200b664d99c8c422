import Synchronization
import Wire
import Workload

/// Applies a `FaultPlan` to the pushes and connections as they arrive: which pushes are answered
/// with an injected error, how long each answer waits or whether it is sent at all, and how long
/// a new connection's handshake waits. Shared by every connection; push `n` (in arrival order)
/// gets the same draws in every run with the same seed.
package final class FaultInjector: Sendable {
    /// What to do with one push.
    package struct Decision {
        /// The reason to answer instead of the validator's 200, if any.
        package var injected: APNsReason?
        /// How long to hold the answer, nanoseconds.
        package var delayNanos: UInt64
        /// Whether a stall is part of the delay.
        package var stalled: Bool
        /// Whether the answer is never to be sent (a `hang` incident).
        package var withheld = false
    }

    package let plan: FaultPlan
    private let startNanos: UInt64
    private let arrivals = Atomic<UInt64>(0)
    /// Cumulative error rates in a fixed order, so one uniform draw picks at most one reason.
    private let thresholds: [(APNsReason, Double)]
    /// Pushes per device token in the current rate-limit window (window number, counts).
    private let tokenCounts = Mutex<(window: UInt64, counts: [String: Int])>((0, [:]))

    /// The injector of `plan` for a mock that started at `startNanos` (monotonic), where its
    /// incidents' and windows' seconds count from.
    package init(plan: FaultPlan, startNanos: UInt64) {
        self.plan = plan
        self.startNanos = startNanos
        var total = 0.0
        thresholds = plan.errorRates.sorted { $0.key.rawValue < $1.key.rawValue }.map { reason, rate in
            total += rate
            return (reason, total)
        }
    }

    /// The decision for a push of `pushType` to `path`, arriving at `nowNanos` (monotonic), that
    /// the validator accepted (`valid`) or rejected.
    package func decide(pushType: PushType?, path: String, nowNanos: UInt64, valid: Bool) -> Decision {
        let arrival = arrivals.wrappingAdd(1, ordering: .relaxed).oldValue
        var random = SplitMix64(seed: plan.seed ^ 0x4641_554C_5453_2121, index: arrival)
        var injected: APNsReason? = nil
        let draw = random.nextUnit()
        if valid, let hit = thresholds.first(where: { draw < $0.1 }) { injected = hit.0 }
        let latency = pushType.flatMap { plan.latencyByPushType[$0] } ?? plan.latency
        var due = nowNanos + UInt64(latency.sample(&random) * 1000)
        var stalled = false
        var withheld = false
        let seconds = Double(nowNanos &- startNanos) / 1e9
        for incident in plan.incidents where incident.covers(seconds) {
            switch incident.kind {
            case .errors(let reason, let share):
                if valid && injected == nil && random.nextUnit() < share { injected = reason }
            case .stall:
                guard let length = incident.forSeconds else {
                    withheld = true
                    continue
                }
                due = max(due, startNanos + UInt64((incident.atSeconds + length) * 1e9))
                stalled = true
            case .hang:
                withheld = true
            case .goAway, .reset, .slowTLSAccept:
                break
            }
        }
        if valid, injected == nil, let limit = plan.tokenRateLimit, overLimit(path, limit, nowNanos: nowNanos) {
            injected = .tooManyRequests
        }
        if let stall = plan.stall {
            let period = UInt64(stall.everySeconds * 1e9)
            let length = UInt64(stall.seconds * 1e9)
            let offset = (due &- startNanos) % period
            if offset >= period - length {
                due += period - offset
                stalled = true
            }
        }
        return Decision(injected: injected, delayNanos: due - nowNanos, stalled: stalled, withheld: withheld)
    }

    /// Whether a push to `path` is one too many for its device token in the current window. Only the
    /// tokens of one window are kept: memory grows with the distinct tokens a window sees.
    private func overLimit(_ path: String, _ limit: FaultPlan.TokenRateLimit, nowNanos: UInt64) -> Bool {
        let window = (nowNanos &- startNanos) / UInt64(limit.windowSeconds * 1e9)
        let token = String(path.utf8.dropFirst("/3/device/".utf8.count)) ?? path
        return tokenCounts.withLock { state in
            if state.window != window { state = (window, [:]) }
            state.counts[token, default: 0] += 1
            return state.counts[token, default: 0] > limit.pushes
        }
    }

    /// How long a connection accepted at `nowNanos` waits before its TLS handshake proceeds
    /// (`slowTLSAccept` incidents), nanoseconds; 0 for none.
    package func handshakeDelayNanos(nowNanos: UInt64) -> UInt64 {
        let seconds = Double(nowNanos &- startNanos) / 1e9
        let delays = plan.incidents.compactMap { incident -> Double? in
            guard case .slowTLSAccept(let delay) = incident.kind, incident.covers(seconds) else { return nil }
            return delay
        }
        return UInt64((delays.max() ?? 0) * 1e9)
    }
}
