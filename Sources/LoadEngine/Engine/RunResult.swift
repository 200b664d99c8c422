import Histogram

/// What a finished run measured, with the parameters it ran with; the input of every report.
public struct RunResult: Sendable {
    /// How load was offered. Requests are submitted whenever a stream is free, so latency runs
    /// from submission; an open-loop mode with intended send times arrives with the load-engine work.
    public enum Mode: String, Sendable {
        case closedLoop = "closed_loop"
        case openLoop = "open_loop"
    }

    /// The configuration of the run.
    public let configuration: LoadConfiguration
    /// How load was offered.
    public let mode: Mode
    /// Wall-clock start, UNIX seconds.
    public let startedAtUnix: Double
    /// From the first submission to the last completion, seconds.
    public let durationSeconds: Double
    /// Outcome totals.
    public let counts: OutcomeCounts
    /// Latency of answered requests, microseconds.
    public let latency: Histogram<UInt64>
    /// Rejections by reason.
    public let rejectedByReason: [String: Int]
    /// Transport failures by kind.
    public let erroredByKind: [String: Int]
    /// Answered requests per connection (local port).
    public let perConnection: [Int: Int]
    /// Answers whose `apns-id` did not echo the request's.
    public let apnsIDMismatches: Int
    /// The per-second series.
    public let timeline: [SecondSample]
    /// CPU seconds the engine's own thread used (user + system).
    public let engineCPUSeconds: Double
    /// Whether the run was stopped early (Ctrl-C); the figures cover what was measured.
    public let interrupted: Bool

    /// Answered and failed requests per second over the run.
    public var throughputPerSecond: Double {
        durationSeconds > 0 ? Double(counts.completed) / durationSeconds : 0
    }

    /// Engine CPU per completed request, microseconds: how expensive the sender itself is.
    public var engineCPUMicrosPerRequest: Double {
        counts.completed > 0 ? engineCPUSeconds * 1e6 / Double(counts.completed) : 0
    }
}
