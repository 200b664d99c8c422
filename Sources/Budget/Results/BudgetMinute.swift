/// One simulated minute of a budget run: the pushes sent in it and what became of them, and
/// the state of the live activities' priority-10 buckets at its end.
public struct BudgetMinute: Sendable, Equatable {
    /// Pushes sent in the minute at priority 10, 5 and 1.
    public var pushesP10 = 0
    public var pushesP5 = 0
    public var pushesP1 = 0
    /// The outcomes of the pushes sent in the minute, indexed by `BudgetOutcome.ordinal` (a
    /// low-priority push shown at its window's end counts in the minute it was sent).
    public var outcomes = [Int](repeating: 0, count: BudgetOutcome.allCases.count)
    /// Activities live at the minute's end.
    public var live = 0
    /// Live activities whose priority-10 bucket held less than one update at the minute's end.
    public var exhausted = 0
    /// Activities throttled for the first time in the minute.
    public var firstThrottles = 0

    /// All pushes sent in the minute.
    public var pushes: Int { pushesP10 + pushesP5 + pushesP1 }

    mutating func add(_ other: BudgetMinute) {
        pushesP10 += other.pushesP10
        pushesP5 += other.pushesP5
        pushesP1 += other.pushesP1
        for index in outcomes.indices { outcomes[index] += other.outcomes[index] }
        live += other.live
        exhausted += other.exhausted
        firstThrottles += other.firstThrottles
    }
}
