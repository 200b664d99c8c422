/// One second of a run: what was sent and what came back in it.
public struct SecondSample: Sendable, Equatable {
    /// Seconds since the run started; the sample covers [second, second + intervalSeconds).
    public var second: Int
    /// How long the sample covers: 1, except for the run's last, partial second.
    public var intervalSeconds = 1.0
    /// Requests sent and ended in this second.
    public var counts = OutcomeCounts()
    /// Median latency of responses that arrived in this second, microseconds (0 if none).
    public var p50Us: UInt64 = 0
    /// 99th-percentile latency of responses that arrived in this second, microseconds.
    public var p99Us: UInt64 = 0
    /// Largest latency in this second, microseconds.
    public var maxUs: UInt64 = 0
    /// The second's latency histogram (two significant digits) as its buckets, so that shards'
    /// seconds add up to exact percentiles; empty in an unsharded run, which keeps only the
    /// percentiles.
    public var latencyBuckets: [LatencyBucket] = []

    /// Requests that ended per second in this sample (counts divided by its real length, so the
    /// last partial second does not look like a collapse).
    public var completedPerSecond: Double {
        intervalSeconds > 0 ? Double(counts.completed) / intervalSeconds : 0
    }

    /// Requests answered 200 per second in this sample, measured as `completedPerSecond` is.
    public var succeededPerSecond: Double {
        intervalSeconds > 0 ? Double(counts.succeeded) / intervalSeconds : 0
    }

    /// Creates an empty sample for `second`.
    public init(second: Int) {
        self.second = second
    }
}
