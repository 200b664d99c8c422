/// The state of a running run, for a live display.
public struct ProgressSnapshot: Sendable {
    /// Seconds since the run started.
    public let elapsedSeconds: Double
    /// Requests to send in all.
    public let total: Int
    /// Outcome totals so far.
    public let counts: OutcomeCounts
    /// Completions per second since the previous snapshot.
    public let recentRatePerSecond: Double
    /// Median latency so far, microseconds.
    public let p50Us: UInt64
    /// 99th-percentile latency so far, microseconds.
    public let p99Us: UInt64
}
