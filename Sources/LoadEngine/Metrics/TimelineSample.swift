/// One interval of a run's timeline: what was sent and what came back in it.
///
/// A run's intervals are all as long as its resolution (`RunTimeline.resolutions`: 10 ms for a
/// sub-second run up to a minute for a day-long one), so every run has enough points to chart.
public struct TimelineSample: Sendable, Equatable {
    /// When the interval starts, seconds since the measurement started.
    public var startSeconds: Double
    /// How long the interval covers: the run's resolution, except for the run's last, partial one.
    public var intervalSeconds: Double
    /// Requests sent and ended in this interval.
    public var counts = OutcomeCounts()
    /// Median latency of responses that arrived in this interval, microseconds (0 if none).
    public var p50Us: UInt64 = 0
    /// 99th-percentile latency of responses that arrived in this interval, microseconds.
    public var p99Us: UInt64 = 0
    /// Largest latency in this interval, microseconds.
    public var maxUs: UInt64 = 0
    /// The interval's latency histogram (two significant digits) as its buckets, so that shards'
    /// intervals add up to exact percentiles; empty in an unsharded run, which keeps only the
    /// percentiles.
    public var latencyBuckets: [LatencyBucket] = []

    /// Requests that ended per second in this interval (counts divided by its real length, so
    /// the last partial interval does not look like a collapse).
    public var completedPerSecond: Double {
        intervalSeconds > 0 ? Double(counts.completed) / intervalSeconds : 0
    }

    /// Requests answered 200 per second in this interval, measured as `completedPerSecond` is.
    public var succeededPerSecond: Double {
        intervalSeconds > 0 ? Double(counts.succeeded) / intervalSeconds : 0
    }

    /// Where the interval ends, seconds since the measurement started.
    public var endSeconds: Double { startSeconds + intervalSeconds }

    /// Creates an empty sample of `[startSeconds, startSeconds + intervalSeconds)`.
    public init(startSeconds: Double, intervalSeconds: Double) {
        self.startSeconds = startSeconds
        self.intervalSeconds = intervalSeconds
    }
}
