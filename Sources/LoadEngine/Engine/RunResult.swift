import Histogram
import Transport

/// What a finished run measured, with the parameters it ran with; the input of every report.
public struct RunResult: Sendable {
    /// How load was offered.
    public enum Mode: String, Sendable {
        /// A request leaves whenever a stream is free; latency runs from its submission.
        case closedLoop = "closed_loop"
        /// Requests have intended send times (a rate or the scenario's clock); latency runs from
        /// the intended time.
        case openLoop = "open_loop"
    }

    /// The configuration of the run.
    public let configuration: LoadConfiguration
    /// How load was offered.
    public let mode: Mode
    /// Wall-clock start, UNIX seconds.
    public let startedAtUnix: Double
    /// From the end of the warmup (the start, without one) to the last completion, seconds.
    public let durationSeconds: Double
    /// Outcome totals of the measured requests (the warmup's are apart).
    public let counts: OutcomeCounts
    /// Outcomes of the requests meant to leave during the warmup.
    public let warmupCounts: OutcomeCounts
    /// The warmup's rejections by reason.
    public let warmupRejectedByReason: [String: Int]
    /// Latency of answered requests, microseconds.
    public let latency: Histogram<UInt64>
    /// Rejections by reason.
    public let rejectedByReason: [String: Int]
    /// Transport failures by class: `FailureClass`'s raw values, the same for both transports.
    public let erroredByKind: [String: Int]
    /// One message of each class in `erroredByKind`, in the transport's own words.
    public var erroredSamples: [String: String] = [:]
    /// Connections the transports tried to open, whether or not they came up.
    public var connectionAttempts = 0
    /// Whether a closed-loop run without a duration stopped early because its target answered
    /// nothing through every reconnect backoff (the rest of its pushes were not sent).
    public var gaveUpOnTarget = false
    /// Whether the run took every event of the scenario (of its shard's activities): none was
    /// left unsent by `--requests`, `--duration`, a stop, or a rate that fell to 0.
    public var tookEveryEvent = true
    /// The broadcasts among `counts` (iOS 18 channels), with their own outcomes, latency and
    /// reach; empty when the scenario has none.
    public var broadcasts = BroadcastBooks()
    /// The channel requests around the broadcasts: made by the session, not the engine.
    public var channels = ChannelBooks()
    /// A partial merge's missing and interrupted shards (`merge --partial`); `nil` for a run and
    /// for a merge of every shard, complete.
    public var shardGaps: ShardGaps?
    /// Answered requests per connection, keyed by `connectionKey(shard:localPort:)`: the local
    /// port alone in an unsharded run, and unique across the shards of a merged one.
    public let perConnection: [Int: Int]
    /// Answers whose `apns-id` did not echo the request's.
    public let apnsIDMismatches: Int
    /// The time series, at `timelineResolutionSeconds` (see `RunTimeline`).
    public let timeline: [TimelineSample]
    /// How long each interval of `timeline` is, seconds (its last may be shorter).
    public var timelineResolutionSeconds = 1.0
    /// Open loop: how late requests left against their intended times, microseconds.
    public let scheduleLag: Histogram<UInt64>
    /// Pushes not sent because their token had been answered 410 earlier in the run, as a
    /// careful sender drops such tokens.
    public let skippedForGoneTokens: Int
    /// Starts not sent because the run addressed real tokens, whose activities their apps started.
    public let startsNotSent: Int
    /// What retrying did (attempts are also in `counts`: each attempt is a request).
    public let retries: RetryCounts
    /// Reconnections and refused requests sent again; `nil` when the transport cannot tell.
    public let recoveries: TransportRecoveries?
    /// Where the workers' time went, stage by stage.
    public let stageTimes: StageTimes
    /// CPU seconds the engine's worker threads used (user + system).
    public let engineCPUSeconds: Double
    /// Whether the run was stopped early (Ctrl-C); the figures cover what was measured.
    public let interrupted: Bool

    /// Creates a result; the engine measures one, `merged(_:)` adds shards' up, and a summary's
    /// reader restores one.
    public init(
        configuration: LoadConfiguration,
        mode: Mode,
        startedAtUnix: Double,
        durationSeconds: Double,
        counts: OutcomeCounts,
        warmupCounts: OutcomeCounts,
        warmupRejectedByReason: [String: Int],
        latency: Histogram<UInt64>,
        rejectedByReason: [String: Int],
        erroredByKind: [String: Int],
        perConnection: [Int: Int],
        apnsIDMismatches: Int,
        timeline: [TimelineSample],
        scheduleLag: Histogram<UInt64>,
        skippedForGoneTokens: Int,
        startsNotSent: Int,
        retries: RetryCounts,
        recoveries: TransportRecoveries?,
        stageTimes: StageTimes,
        engineCPUSeconds: Double,
        interrupted: Bool
    ) {
        self.configuration = configuration
        self.mode = mode
        self.startedAtUnix = startedAtUnix
        self.durationSeconds = durationSeconds
        self.counts = counts
        self.warmupCounts = warmupCounts
        self.warmupRejectedByReason = warmupRejectedByReason
        self.latency = latency
        self.rejectedByReason = rejectedByReason
        self.erroredByKind = erroredByKind
        self.perConnection = perConnection
        self.apnsIDMismatches = apnsIDMismatches
        self.timeline = timeline
        self.scheduleLag = scheduleLag
        self.skippedForGoneTokens = skippedForGoneTokens
        self.startsNotSent = startsNotSent
        self.retries = retries
        self.recoveries = recoveries
        self.stageTimes = stageTimes
        self.engineCPUSeconds = engineCPUSeconds
        self.interrupted = interrupted
    }

    /// The key of a connection in `perConnection`: local ports repeat from machine to machine,
    /// so shard `i`'s ports are offset by `i × 65536`.
    public static func connectionKey(shard: Int, localPort: Int) -> Int { shard << 16 | localPort }

    /// The shard and local port a `perConnection` key stands for.
    public static func connection(ofKey key: Int) -> (shard: Int, localPort: Int) { (key >> 16, key & 0xFFFF) }

    /// Answered and failed requests per second over the run: attempts, whatever became of them.
    public var throughputPerSecond: Double {
        durationSeconds > 0 ? Double(counts.completed) / durationSeconds : 0
    }

    /// Requests answered 200 per second over the run.
    public var successesPerSecond: Double {
        durationSeconds > 0 ? Double(counts.succeeded) / durationSeconds : 0
    }

    /// Whether the run sent pushes and the target answered none of them over HTTP, having
    /// failed every connection: what a refusing or unreachable target looks like.
    public var noConnectionWorked: Bool {
        counts.sent > 0 && counts.succeeded + counts.rejected == 0
            && failureClasses.first.map(\.isConnectionLevel) == true
    }

    /// Whether the run sent pushes and none succeeded: a failed run, whatever else it measured.
    public var nothingSucceeded: Bool { counts.sent > 0 && counts.succeeded == 0 }

    /// The failure classes of the run, most frequent first.
    public var failureClasses: [FailureClass] {
        erroredByKind.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.compactMap { FailureClass(rawValue: $0.key) }
    }

    /// The share of the run the workers spent on a CPU (1: every worker busy all the time).
    public var workerBusyShare: Double {
        durationSeconds > 0 ? engineCPUSeconds / (durationSeconds * Double(configuration.threads)) : 0
    }

    /// Whether the sender, not the target, limited the run: its workers were on a CPU at least
    /// 90% of the time, so a faster target would not have been sent to any faster.
    public var senderLimited: Bool { workerBusyShare >= 0.9 }

    /// Engine CPU per completed request, microseconds: how expensive the sender itself is.
    public var engineCPUMicrosPerRequest: Double {
        counts.completed > 0 ? engineCPUSeconds * 1e6 / Double(counts.completed) : 0
    }
}
