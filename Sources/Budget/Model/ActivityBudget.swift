/// One activity's state in the budget model, apart from its priority-10 bucket (which the
/// model keeps in arrays of its own, so the per-minute sweep reads 24 bytes per activity).
struct ActivityBudget {
    /// Where the activity is in its life.
    enum Status: UInt8 {
        /// No push yet.
        case waiting
        /// Started: takes pushes until its `end` or its active limit.
        case live
        /// Its `end` was shown.
        case ended
        /// Its start was throttled; it never began.
        case notStarted
    }

    var status = Status.waiting
    /// The device of its first push.
    var device = -1
    var beganAtMs: Int64 = 0
    /// End of the open low-priority window, or -1 when none is open.
    var windowEndMs: Int64 = -1
    /// The low-priority update waiting for the window's end, or `sendMs == -1` when none is.
    var pendingSendMs: Int64 = -1
    var pendingTimestamp: Int64 = 0
    var pendingLabel: Int32 = 0
    var pendingPriority: Int32 = 0
    /// Whether the pending low-priority update is the activity's `end`.
    var pendingIsEnd = false
    /// Whether an `end` was received, shown or not: one never shown leaves the activity on screen.
    var endReceived = false
    /// `aps.timestamp` of the newest shown state; older pushes are stale.
    var newestShownTimestamp = Int64.min
    var firstThrottleMs: Int64 = -1
    var maxLagMs: Int64 = 0
    var neverShown: UInt32 = 0
    /// Updates not yet followed by a shown state, oldest first, in `UnresolvedUpdates`.
    var unresolvedHead: Int32 = -1
    var unresolvedTail: Int32 = -1
    var counts = Counts()

    /// Pushes per outcome, indexed by `BudgetOutcome.ordinal`.
    struct Counts {
        var values: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0, 0, 0)

        subscript(outcome: BudgetOutcome) -> UInt32 {
            get {
                switch outcome {
                case .shown: values.0
                case .throttled: values.1
                case .coalesced: values.2
                case .droppedEnded: values.3
                case .droppedStale: values.4
                case .startThrottled: values.5
                case .notStarted: values.6
                }
            }
            set {
                switch outcome {
                case .shown: values.0 = newValue
                case .throttled: values.1 = newValue
                case .coalesced: values.2 = newValue
                case .droppedEnded: values.3 = newValue
                case .droppedStale: values.4 = newValue
                case .startThrottled: values.5 = newValue
                case .notStarted: values.6 = newValue
                }
            }
        }
    }
}
