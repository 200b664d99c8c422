import Histogram

/// A run's figures at one moment, added up over its workers: what the progress line and a
/// run's `/metrics` show while it runs.
///
/// Each worker fills one in from its own books when asked (`LiveMetrics`), so every figure is
/// the one that worker's `RunMetrics` holds at that moment, and the last ones, taken as each
/// worker finishes, add up to the run's result.
public struct LiveSnapshot: Sendable {
    /// Outcomes of the measured requests (after the warmup), as the run's result counts them.
    public var counts = OutcomeCounts()
    /// Outcomes of the requests meant to leave during the warmup.
    public var warmup = OutcomeCounts()
    /// Measured rejections by APNs reason, and transport failures by class.
    public var rejectedByReason: [String: Int] = [:]
    public var erroredByKind: [String: Int] = [:]
    /// Latency of the measured answers, microseconds, three significant digits.
    public var latency = Histogram.latency(digits: .three)
    /// How late each measured request left against its intended time, microseconds.
    public var scheduleLag = Histogram.latency(digits: .two)
    /// Requests handed to the transport and not yet ended, warmup ones included.
    public var inFlight = 0
    /// Open loop: pushes whose intended time has come and that have not been sent; `nil` when a
    /// worker cannot count them (pacing on the scenario's clock, a broadcast burst). Closed loop
    /// has no schedule, so nothing is ever due: 0.
    public var backlog: Int? = 0
    /// Open loop: how late the next push to send already is, seconds; the largest over the
    /// workers.
    public var behindScheduleSeconds = 0.0
    /// Connections up now; `nil` when the transport cannot tell (libcurl).
    public var connectionsOpen: Int? = 0
    /// Connections tried, and those opened again after a failure or GOAWAY (`nil` for libcurl).
    public var connectionAttempts = 0
    public var reconnections: Int? = 0
    /// Retry attempts sent.
    public var retriesSent = 0
    /// Each worker's CPU time (user and system) since it started, seconds, by worker.
    public var workerCPUSeconds: [Double] = []
    /// Workers in the run (set by the reader), and those that have finished.
    public var workers = 0
    public var workersFinished = 0

    /// An empty snapshot.
    public init() {}

    /// Adds another worker's snapshot.
    mutating func add(_ other: LiveSnapshot) {
        counts.add(other.counts)
        warmup.add(other.warmup)
        rejectedByReason.merge(other.rejectedByReason, uniquingKeysWith: +)
        erroredByKind.merge(other.erroredByKind, uniquingKeysWith: +)
        if other.latency.totalCount > 0 { latency.add(other.latency) }
        if other.scheduleLag.totalCount > 0 { scheduleLag.add(other.scheduleLag) }
        inFlight += other.inFlight
        backlog = backlog.flatMap { mine in other.backlog.map { mine + $0 } }
        behindScheduleSeconds = max(behindScheduleSeconds, other.behindScheduleSeconds)
        connectionsOpen = connectionsOpen.flatMap { mine in other.connectionsOpen.map { mine + $0 } }
        connectionAttempts += other.connectionAttempts
        reconnections = reconnections.flatMap { mine in other.reconnections.map { mine + $0 } }
        retriesSent += other.retriesSent
        workerCPUSeconds += other.workerCPUSeconds
        workersFinished += other.workersFinished
    }
}
