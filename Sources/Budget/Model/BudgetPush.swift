import Workload

/// One push the target accepted, as the budget model needs it: whose, when, how urgent.
///
/// The simulation makes these from a scenario's events; `--traffic` reads them from what the
/// mock recorded. Activities and devices are dense indices chosen by the caller.
public struct BudgetPush: Sendable, Equatable {
    /// Send time, milliseconds from the start of the traffic.
    public var timeMs: Int64
    /// The activity the push is for.
    public var activity: Int
    /// The device, whose push-to-start bucket a `start` draws on.
    public var device: Int
    /// `aps.event`.
    public var phase: LifecyclePhase
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int
    /// `aps.timestamp`, UNIX (or simulated) seconds.
    public var timestampSeconds: Int64
    /// What happened, as an index into the model's `PushLabels` (event kinds for a scenario,
    /// `aps.event` for recorded traffic), for the outcome mix and key-event lags.
    public var label: Int

    /// Creates a push.
    public init(
        timeMs: Int64,
        activity: Int,
        device: Int,
        phase: LifecyclePhase,
        priority: Int,
        timestampSeconds: Int64,
        label: Int
    ) {
        self.timeMs = timeMs
        self.activity = activity
        self.device = device
        self.phase = phase
        self.priority = priority
        self.timestampSeconds = timestampSeconds
        self.label = label
    }
}
