/// When a load run's accepted pushes reach the modelled devices.
///
/// A load test sends a two-hour match in seconds. Modelled at that pace, every device gets the
/// match's updates within one low-priority window, and the model reports the sender's policy as
/// throttled and coalesced when only the test was fast. So a run models its accepted pushes on
/// the scenario's clock unless asked otherwise.
public enum BudgetClock: String, CaseIterable, Sendable {
    /// Each accepted push reaches its device at its event's time in the scenario, whatever the
    /// run's pace: what the scenario's policy costs the devices. `run` and `budget` agree.
    case scenario
    /// Each accepted push reaches its device when the run got it accepted (scaled by
    /// `--time-scale`): what the devices would make of a sender that fired this fast.
    case run

    /// One sentence on what the figures mean under this clock, for the report's first line.
    public var meaning: String {
        switch self {
        case .scenario:
            "each accepted push reaches its device at its event's time in the scenario, however fast "
                + "the run sent it, so these figures are what the scenario's policy costs the devices"
        case .run:
            "each accepted push reaches its device when the run got it accepted, so these figures are "
                + "what the devices would make of a sender firing this fast, not of the scenario's policy"
        }
    }
}
