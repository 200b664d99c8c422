/// When each call's pushes arrived, nanoseconds after the call's intended time, kept flat (twelve
/// bytes an arrival) rather than an array a call: a service sent a call per activity holds a
/// million calls, and a million small arrays would cost more than their arrivals.
public struct FanoutTimes: Sendable {
    private var calls: [Int32] = []
    private var lagsNs: [Int64] = []

    /// No arrival yet.
    public init() {}

    /// Books an arrival for call `call`, `lagNs` after its intended time.
    public mutating func append(call: Int, lagNs: Int64) {
        calls.append(Int32(call))
        lagsNs.append(lagNs)
    }

    /// Each call's fan-out, `expected[c]` arrivals owed to call `c`: grouped by call (a counting
    /// sort), then each call's times sorted, in O(arrivals × log of a call's) and O(calls).
    public func fanouts(expected: [Int]) -> [ArrivalBook.CallFanout] {
        var first = [Int](repeating: 0, count: expected.count + 1)
        for call in calls where Int(call) < expected.count { first[Int(call) + 1] += 1 }
        for call in 0..<expected.count { first[call + 1] += first[call] }
        var next = first
        var grouped = [Int64](repeating: 0, count: first[expected.count])
        for (arrival, call) in calls.enumerated() where Int(call) < expected.count {
            grouped[next[Int(call)]] = lagsNs[arrival]
            next[Int(call)] += 1
        }
        return grouped.withUnsafeMutableBufferPointer { times in
            expected.indices.map { call in
                var own = UnsafeMutableBufferPointer(rebasing: times[first[call]..<first[call + 1]])
                own.sort()
                return ArrivalBook.CallFanout(
                    call: call,
                    expected: expected[call],
                    arrived: own.count,
                    milestones: ArrivalBook.milestones(own, expected: expected[call])
                )
            }
        }
    }
}
