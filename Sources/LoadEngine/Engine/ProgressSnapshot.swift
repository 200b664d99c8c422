/// The state of a running run, for a live display.
public struct ProgressSnapshot: Sendable {
    /// Seconds since the run started.
    public let elapsedSeconds: Double
    /// Pushes the run will send at most, when known (`--requests`).
    public let total: Int?
    /// Outcome totals so far.
    public let counts: OutcomeCounts
    /// Completions per second since the previous snapshot.
    public let recentRatePerSecond: Double
    /// Median latency of the latest second every worker has handed over, microseconds.
    public let p50Us: UInt64
    /// 99th-percentile latency of that second, microseconds.
    public let p99Us: UInt64
}
