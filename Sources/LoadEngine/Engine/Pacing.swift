import Workload

/// When each push of a run is meant to leave.
public enum Pacing: Sendable, Equatable {
    /// Closed loop: a push leaves whenever a stream is free, and its latency runs from then.
    case closedLoop
    /// Open loop at a rate that may change over the run (constant, ramp, steps): push `i` (in
    /// scenario order) is intended when the rate's integral reaches `i`.
    case rate(RateProfile)
    /// Open loop on the scenario's own clock, `scale` times faster: an event at simulated time
    /// `t` is intended at the start plus `(t - t₀) / scale`, `t₀` being the first event's time.
    /// A goal fanned out to a million activities is a million pushes due at once.
    case scenarioTime(scale: Double)

    /// Open loop, all at once: one update of this kind (a goal) to every activity, all intended
    /// at the start, so latency says how long until each follower had it, and the run's length
    /// how long until the last did.
    case burst(EventKind)

    /// Open loop at a constant rate.
    public static func constantRate(perSecond: Double) throws(RateProfileError) -> Pacing {
        .rate(try .constant(perSecond))
    }

    /// How reports name the pacing, e.g. `open loop at 1000/s`.
    public var label: String {
        switch self {
        case .closedLoop: "closed loop"
        case .rate(let profile): "open loop at \(profile.label)"
        case .scenarioTime(let scale): "open loop on the scenario's clock, \(RateProfile.number(scale))× faster"
        case .burst(let kind): "open loop, a burst: one \(kind.rawValue) to every activity, all due at once"
        }
    }

    /// Whether latency runs from intended send times (open loop).
    public var isOpenLoop: Bool { self != .closedLoop }

    /// Whether every push is due at once, one event to every activity.
    public var isBurst: Bool {
        if case .burst = self { return true }
        return false
    }

    /// How many simulated seconds one real second of the run stands for: the budget model runs
    /// the accepted pushes on this clock.
    public var simulatedSecondsPerSecond: Double {
        if case .scenarioTime(let scale) = self { return scale }
        return 1
    }
}
