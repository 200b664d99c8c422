import Histogram
import Transport

/// A run's broadcasts (iOS 18 channels), counted apart from its pushes to tokens: each is one
/// request that reaches a whole group, so its outcomes, latency and reach are read on their own.
/// `RunResult.counts` holds them too, as requests on the same connections.
public struct BroadcastBooks: Sendable, Equatable {
    /// How the broadcasts ended (measured ones; warmup excluded like every figure).
    public var counts = OutcomeCounts()
    /// From each answered broadcast's intended send time to its answer, microseconds.
    public var latency = Histogram.latency(digits: .three)
    /// Devices the accepted broadcasts reached: their subscribers, one per activity.
    public var devicesReached = 0

    /// Creates empty books.
    public init() {}

    /// Counts one ended broadcast observed at `now`, which reached `subscribers` if accepted.
    mutating func record(_ completion: PushCompletion, now: UInt64, subscribers: Int) {
        counts.count(completion.outcome)
        guard case .response(let status, _) = completion.outcome else { return }
        latency.record(max(1, (now &- completion.intendedAt) / 1000))
        if status == 200 { devicesReached += subscribers }
    }

    /// Adds `other`'s books (another worker's, another shard's).
    public mutating func add(_ other: BroadcastBooks) {
        counts.add(other.counts)
        latency.add(other.latency)
        devicesReached += other.devicesReached
    }
}
