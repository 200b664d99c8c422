/// One activity's life in a budget run, for `budget_activities.csv`.
public struct ActivityRecord: Sendable, Equatable {
    /// The activity's index.
    public var activity: Int
    /// Its device.
    public var device: Int
    /// When it began, ms, or `nil` if it never did.
    public var beganAtMs: Int64?
    /// When it was first throttled, ms, or `nil`.
    public var firstThrottleMs: Int64?
    /// Whether it had frequent updates.
    public var frequent: Bool
    /// Pushes per outcome, indexed by `BudgetOutcome.ordinal`.
    public var outcomes: [Int]
    /// Its longest display lag, ms.
    public var maxLagMs: Int64
    /// Its updates never followed by a shown state.
    public var neverShown: Int
    /// Priority-10 updates left in its bucket when its life ended (its `end`, its active limit).
    public var tokensLeft: Double
}
