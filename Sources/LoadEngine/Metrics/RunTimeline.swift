import Histogram
import Synchronization

/// The per-second series of a run, written by all its workers, and their running totals for the
/// progress display.
///
/// A worker hands over each second when it closes it, with the second's latency histogram, so
/// the merged p50 and p99 are exact. A second is final once every worker has closed it (or
/// finished); until then it is the only place its histogram lives, so memory stays flat however
/// long the run. Workers call in about once a second each, so the lock is never contended.
final class RunTimeline: Sendable {
    private struct OpenSecond {
        var sample: SecondSample
        var latency: Histogram<UInt64>
    }

    private struct State {
        var closed: [SecondSample] = []
        var open: [Int: OpenSecond] = [:]
        /// Per worker: every second before this one has been handed over.
        var closedBefore: [Int]
        var counts: [OutcomeCounts]
    }

    private let state: Mutex<State>
    private let keepsLatencyBuckets: Bool

    /// Creates the timeline of a run with `workers` workers; with `keepsLatencyBuckets` (a
    /// shard's run, to be merged) each closed second keeps its histogram's buckets, a few
    /// kilobytes a second, and otherwise only its percentiles, so a long run's memory stays flat.
    init(workers: Int, keepsLatencyBuckets: Bool = false) {
        self.keepsLatencyBuckets = keepsLatencyBuckets
        state = Mutex(
            State(closedBefore: Array(repeating: 0, count: workers), counts: Array(repeating: .init(), count: workers))
        )
    }

    /// Adds `worker`'s closed second `sample` and the latencies answered in it.
    func add(_ sample: SecondSample, latency: Histogram<UInt64>, worker: Int) {
        state.withLock { state in
            if var open = state.open[sample.second] {
                open.sample.counts.add(sample.counts)
                open.sample.intervalSeconds = max(open.sample.intervalSeconds, sample.intervalSeconds)
                open.latency.add(latency)
                state.open[sample.second] = open
            } else {
                state.open[sample.second] = OpenSecond(sample: sample, latency: latency)
            }
            state.closedBefore[worker] = sample.second + 1
            Self.closeFinalSeconds(&state, keepingBuckets: keepsLatencyBuckets)
        }
    }

    /// Records that `worker` will hand over no more seconds.
    func finish(worker: Int) {
        state.withLock { state in
            state.closedBefore[worker] = .max
            Self.closeFinalSeconds(&state, keepingBuckets: keepsLatencyBuckets)
        }
    }

    /// Publishes `worker`'s running totals for the progress display, its warmup's included.
    func publish(_ counts: OutcomeCounts, warmup: OutcomeCounts = OutcomeCounts(), worker: Int) {
        var total = counts
        total.add(warmup)
        state.withLock { $0.counts[worker] = total }
    }

    /// Every worker's totals added up, and the latest second every worker has closed.
    var progress: (counts: OutcomeCounts, lastSecond: SecondSample?) {
        state.withLock { state in
            var total = OutcomeCounts()
            for counts in state.counts { total.add(counts) }
            return (total, state.closed.last)
        }
    }

    /// The series; complete once every worker has finished.
    var seconds: [SecondSample] {
        state.withLock { $0.closed }
    }

    private static func closeFinalSeconds(_ state: inout State, keepingBuckets: Bool) {
        let final = state.closedBefore.min() ?? 0
        var second = state.closed.count
        while second < final, let open = state.open.removeValue(forKey: second) {
            var sample = open.sample
            if open.latency.totalCount > 0 {
                sample.p50Us = open.latency.valueAtPercentile(50)
                sample.p99Us = open.latency.valueAtPercentile(99)
                sample.maxUs = open.latency.max
                if keepingBuckets { sample.latencyBuckets = open.latency.buckets }
            }
            state.closed.append(sample)
            second += 1
        }
    }
}
