/// What the device did with one push (`docs/budget-model.md`, Outcomes).
public enum BudgetOutcome: String, Sendable, CaseIterable {
    /// Displayed: at once (priority 10 with a token, a start), or at the end of its
    /// low-priority window.
    case shown
    /// Priority 10 that found less than one token in the bucket.
    case throttled
    /// Low priority that a later one in its window, or a priority-10 update shown after it,
    /// replaced.
    case coalesced
    /// Arrived after the activity's `end` or after its active limit.
    case droppedEnded = "dropped_ended"
    /// Its `aps.timestamp` was older than the newest shown one.
    case droppedStale = "dropped_stale"
    /// A start that found the device's push-to-start bucket empty.
    case startThrottled = "start_throttled"
    /// Any push to an activity whose start was throttled.
    case notStarted = "not_started"

    /// The case's position in `allCases`, for tables indexed without hashing.
    public var ordinal: Int {
        switch self {
        case .shown: 0
        case .throttled: 1
        case .coalesced: 2
        case .droppedEnded: 3
        case .droppedStale: 4
        case .startThrottled: 5
        case .notStarted: 6
        }
    }
}
