import Histogram
import Synchronization

/// The time series of a run, written by all its workers, at a resolution that follows the
/// run's length.
///
/// A run's length is not known ahead (a closed-loop run ends when its pushes are answered), so
/// the series starts at the finest resolution, 10 ms, and whenever it would pass
/// `mostIntervals` intervals it coarsens to the next step of `resolutions`, adding neighbours'
/// counts and histograms up. Each step divides the next, so intervals always nest, and a run has
/// between 50 and 250 of them (fewer only under half a second, more only past four hours at a
/// minute each). Each interval's percentiles come from its own histogram, never from averages.
///
/// A worker keeps its current interval and hands it over when it closes, at the resolution it
/// read when it opened it; one finer than the series' current one joins the interval it falls
/// in. The lock is taken about as often as a worker closes an interval (at most 100 times a
/// second each), never per push.
final class RunTimeline: Sendable {
    /// The resolutions, finest first, nanoseconds. Each divides the next.
    static let resolutions: [UInt64] = [
        10_000_000, 20_000_000, 100_000_000, 200_000_000, 1_000_000_000, 2_000_000_000, 10_000_000_000,
        20_000_000_000, 60_000_000_000,
    ]
    /// The series coarsens rather than grow past this many intervals; the coarsest step is five
    /// times the one before, so a coarsened series still has at least 50.
    static let mostIntervals = 250

    private struct Interval {
        var counts = OutcomeCounts()
        var latency = Histogram.latency(digits: .two)

        mutating func add(_ other: Interval) {
            counts.add(other.counts)
            if other.latency.totalCount > 0 { latency.add(other.latency) }
        }
    }

    private struct State {
        var level = 0
        var intervals: [Interval] = []
        /// The latest instant any worker's intervals reached, nanoseconds since the start.
        var endNanos: UInt64 = 0
        /// Per worker: every instant before this one (nanoseconds since the start) is handed over.
        var closedBefore: [UInt64]

        var resolution: UInt64 { RunTimeline.resolutions[level] }

        /// Adds the neighbours that share an interval at the next resolution.
        mutating func coarsen() {
            let factor = Int(RunTimeline.resolutions[level + 1] / resolution)
            level += 1
            intervals = stride(from: 0, to: intervals.count, by: factor).map { first in
                var merged = intervals[first]
                for index in first + 1..<min(first + factor, intervals.count) { merged.add(intervals[index]) }
                return merged
            }
        }
    }

    private let state: Mutex<State>
    private let level = Atomic<Int>(0)
    private let keepsLatencyBuckets: Bool

    /// Creates the timeline of a run with `workers` workers; with `keepsLatencyBuckets` (a
    /// shard's run, to be merged) each interval keeps its histogram's buckets, a few kilobytes
    /// each, and otherwise only its percentiles.
    init(workers: Int, keepsLatencyBuckets: Bool = false) {
        self.keepsLatencyBuckets = keepsLatencyBuckets
        state = Mutex(
            State(closedBefore: Array(repeating: 0, count: workers))
        )
    }

    /// The series' resolution now, nanoseconds: how long a worker's next interval should be.
    var resolutionNanos: UInt64 { Self.resolutions[level.load(ordering: .relaxed)] }

    /// Adds `worker`'s interval `[fromNanos, toNanos)` (since the measurement's start): its
    /// counts and the latencies answered in it. The worker hands over nothing before `nextNanos`
    /// any more.
    func add(
        _ counts: OutcomeCounts,
        latency: Histogram<UInt64>,
        fromNanos: UInt64,
        toNanos: UInt64,
        nextNanos: UInt64,
        worker: Int
    ) {
        state.withLock { state in
            state.closedBefore[worker] = nextNanos
            state.endNanos = max(state.endNanos, toNanos)
            while state.level + 1 < Self.resolutions.count && state.endNanos > 0
                && (state.endNanos - 1) / state.resolution >= UInt64(Self.mostIntervals)
            {
                state.coarsen()
                level.store(state.level, ordering: .relaxed)
            }
            guard counts != OutcomeCounts() else { return }
            let index = Int(fromNanos / state.resolution)
            if index >= state.intervals.count {
                state.intervals.append(contentsOf: repeatElement(Interval(), count: index + 1 - state.intervals.count))
            }
            state.intervals[index].add(Interval(counts: counts, latency: latency))
        }
    }

    /// Records that `worker` will hand over no more intervals.
    func finish(worker: Int) {
        state.withLock { $0.closedBefore[worker] = .max }
    }

    /// The latency percentiles of the last second that every worker has handed over (`nil`
    /// before one has been, or when nothing was answered), for the progress display.
    var recentPercentiles: (p50Us: UInt64, p99Us: UInt64)? {
        state.withLock { state in
            let closed = state.closedBefore.min() ?? 0
            let resolution = state.resolution
            let end = min(Int(closed / resolution), state.intervals.count)
            let first = max(0, end - Int(max(1, 1_000_000_000 / resolution)))
            var latency = Histogram.latency(digits: .two)
            for index in first..<max(first, end) where state.intervals[index].latency.totalCount > 0 {
                latency.add(state.intervals[index].latency)
            }
            guard latency.totalCount > 0 else { return nil }
            return (latency.valueAtPercentile(50), latency.valueAtPercentile(99))
        }
    }

    /// The series up to its last interval in which anything was sent or ended, and its
    /// resolution in seconds; complete once every worker has finished.
    var samples: (samples: [TimelineSample], resolutionSeconds: Double) {
        state.withLock { state in
            let resolution = state.resolution
            // Intervals after the last one anything happened in hold only the workers' shutdown:
            // charted, they would look like a collapse at the end.
            let count = state.intervals.lastIndex { $0.counts != OutcomeCounts() }.map { $0 + 1 } ?? 0
            let samples = (0..<count).map { index in
                let interval = index < state.intervals.count ? state.intervals[index] : Interval()
                let start = UInt64(index) * resolution
                var sample = TimelineSample(
                    startSeconds: Double(start) / 1e9,
                    intervalSeconds: Double(min(resolution, max(state.endNanos, start) - start)) / 1e9
                )
                sample.counts = interval.counts
                if interval.latency.totalCount > 0 {
                    sample.p50Us = interval.latency.valueAtPercentile(50)
                    sample.p99Us = interval.latency.valueAtPercentile(99)
                    sample.maxUs = interval.latency.max
                    if keepsLatencyBuckets { sample.latencyBuckets = interval.latency.buckets }
                }
                return sample
            }
            return (samples, Double(resolution) / 1e9)
        }
    }
}
