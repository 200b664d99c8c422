import Workload

/// When each of a profile's pushes is due, seconds after `PUSHBENCH_START_AT`: the schedule the
/// sender is handed and its lag is measured against.
public enum EventTiming: Sendable, Equatable {
    /// Every push due at once, at 0: the sender sends as fast as it can, and its lag says how
    /// long each push waited for it.
    case allAtOnce
    /// On the scenario's clock, `scale` times faster (60: a simulated minute a second).
    case scenarioTime(scale: Double)
    /// Evenly spaced: the n-th push (from 0) at n / `perSecond`.
    case constantRate(perSecond: Double)

    /// Microseconds after the start at which the `index`-th push (from 0), `event`, is due.
    public func dueMicroseconds(index: Int, event: WorkloadEvent) -> Int64 {
        dueMicroseconds(index: index, timeMs: event.timeMs)
    }

    /// Microseconds after the start at which the `index`-th push (from 0), due `timeMs` on the
    /// scenario's clock, is due.
    public func dueMicroseconds(index: Int, timeMs: Int64) -> Int64 {
        switch self {
        case .allAtOnce: 0
        case .scenarioTime(let scale): Int64((Double(timeMs) * 1000 / scale).rounded())
        case .constantRate(let perSecond): Int64((Double(index) * 1_000_000 / perSecond).rounded())
        }
    }

    /// Whether pushes fall due on the scenario's clock: what a lifecycle's devices need, so
    /// that they start and report before the updates meant for them.
    public var followsScenarioClock: Bool {
        if case .scenarioTime = self { return true }
        return false
    }
}
