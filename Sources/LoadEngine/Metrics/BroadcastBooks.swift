import Histogram
import Transport

/// A run's broadcasts (iOS 18 channels), counted apart from its pushes to tokens: each is one
/// request that reaches a whole group, so its outcomes, latency and reach are read on their own.
/// `RunResult.counts` holds them too, as requests on the same connections. `deviceReach` covers
/// every accepted push, so per-token and broadcast runs compare on it.
public struct BroadcastBooks: Sendable, Equatable {
    /// How the broadcasts ended (measured ones; warmup excluded like every figure).
    public var counts = OutcomeCounts()
    /// From each answered broadcast's intended send time to its answer, microseconds.
    public var latency = Histogram.latency(digits: .three)
    /// Devices the accepted broadcasts reached: their subscribers, one per activity.
    public var devicesReached = 0
    /// From each accepted push's intended send time until APNs accepted it, microseconds,
    /// counted once per device it reaches: a push to a token once, a broadcast once per
    /// subscriber. Its percentiles say how long until half, 99% and all of the devices had the
    /// update accepted, per token and by broadcast alike (delivery to the device is APNs' own).
    public var deviceReach = Histogram.latency(digits: .three)

    /// Creates empty books.
    public init() {}

    /// Counts one ended push observed at `now`: a broadcast, reaching `subscribers` if accepted,
    /// or (`subscribers` nil) a push to one token, which counts only toward `deviceReach`.
    mutating func record(_ completion: PushCompletion, now: UInt64, subscribers: Int?) {
        let micros = max(1, (now &- completion.intendedAt) / 1000)
        guard let subscribers else {
            if case .response(200, _) = completion.outcome { deviceReach.record(micros) }
            return
        }
        counts.count(completion.outcome)
        guard case .response(let status, _) = completion.outcome else { return }
        latency.record(micros)
        guard status == 200 else { return }
        devicesReached += subscribers
        deviceReach.record(micros, count: UInt64(subscribers))
    }

    /// Adds `other`'s books (another worker's, another shard's).
    public mutating func add(_ other: BroadcastBooks) {
        counts.add(other.counts)
        latency.add(other.latency)
        devicesReached += other.devicesReached
        deviceReach.add(other.deviceReach)
    }
}
