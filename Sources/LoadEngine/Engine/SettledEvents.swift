import DequeModule

/// Numbers a worker's events in the order it takes them from the scenario, and knows how far
/// they have all ended: the boundary below which no push can be accepted any more.
///
/// A worker takes its events in scenario order but hears their answers in any order (streams
/// overtake each other, retries come back later), so whoever models the accepted pushes in
/// scenario order (the budget on the scenario's clock) must hold an answer until every earlier
/// event has ended. An event ends when it was accepted, refused for good, failed past its
/// retries, skipped, or timed out; a retry keeps it open.
struct SettledEvents {
    /// Every event numbered below this has ended.
    private(set) var below = 0
    /// Whether each event from `below` on has ended; the first is always `false`.
    private var ended: Deque<Bool> = []

    /// Numbers the next event the worker takes.
    mutating func take() -> Int {
        ended.append(false)
        return below + ended.count - 1
    }

    /// Records that event `sequence` has ended, and moves the boundary past every event in a
    /// row that has.
    mutating func end(_ sequence: Int) {
        ended[sequence - below] = true
        while ended.first == true {
            ended.removeFirst()
            below += 1
        }
    }
}
