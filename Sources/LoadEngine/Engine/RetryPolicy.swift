import Basics
import HeapModule
import Transport
import Workload

/// When a sender sends a push again, as careful senders do: after 429 TooManyRequests, 500, 503
/// or a transport failure, up to `maxRetries` times, waiting `Retry-After` when the server gives
/// one and otherwise an exponential backoff with full jitter (`base · 2^attempt`, capped).
///
/// Timeouts are not retried: the push may have been delivered, and a duplicate shows twice.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries per push after its first attempt; 0 turns retrying off.
    public var maxRetries: Int
    /// The first backoff's upper bound.
    public var base: Duration
    /// No backoff is longer than this.
    public var cap: Duration

    /// No retries.
    public static let none = RetryPolicy(maxRetries: 0)

    /// Creates a policy.
    public init(maxRetries: Int, base: Duration = .milliseconds(100), cap: Duration = .seconds(10)) {
        self.maxRetries = maxRetries
        self.base = base
        self.cap = cap
    }

    /// Whether a request that ended with `outcome` is worth sending again.
    public static func isRetryable(_ outcome: TransferOutcome) -> Bool {
        switch outcome {
        case .response(let status, _): status == 429 || status == 500 || status == 503
        case .failed: true
        case .timedOut: false
        }
    }

    /// How long to wait before retry number `attempt` (1 for the first retry), nanoseconds:
    /// `retryAfterSeconds` when the server said, else a uniform draw below the backoff bound.
    func delayNanos(attempt: Int, retryAfterSeconds: Int?, random: inout SplitMix64) -> UInt64 {
        if let retryAfterSeconds { return min(Duration.seconds(retryAfterSeconds), cap).inNanoseconds }
        let bound = min(cap.inSeconds, base.inSeconds * Double(1 << min(attempt - 1, 30)))
        return UInt64(random.nextUnit() * bound * 1e9)
    }
}

/// What retrying did in a run, apart from first attempts.
public struct RetryCounts: Sendable, Equatable {
    /// Outcomes of the retry attempts themselves (also inside the run's totals).
    public var attempts = OutcomeCounts()
    /// Pushes whose first attempt failed and a retry succeeded.
    public var recovered = 0
    /// Pushes still failing when their retries ran out.
    public var exhausted = 0

    /// Creates zero counts.
    public init() {}

    /// Adds another worker's counts.
    mutating func add(_ other: RetryCounts) {
        attempts.add(other.attempts)
        recovered += other.recovered
        exhausted += other.exhausted
    }
}

/// A worker's pushes waiting for their next attempt, earliest first.
struct RetryQueue {
    /// A push waiting for its next attempt.
    struct Entry: Comparable {
        var dueNanos: UInt64
        var event: WorkloadEvent
        /// Its number among the worker's events (`SettledEvents`).
        var sequence: Int
        var attempt: Int
        var identity: PushIdentity

        static func < (left: Entry, right: Entry) -> Bool { left.dueNanos < right.dueNanos }
        static func == (left: Entry, right: Entry) -> Bool { left.dueNanos == right.dueNanos }
    }

    private var entries = Heap<Entry>()

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var nextDueNanos: UInt64? { entries.min?.dueNanos }

    /// Queues `entry`.
    mutating func add(_ entry: Entry) {
        entries.insert(entry)
    }

    /// The earliest retry if it is due by `now`.
    mutating func popDue(now: UInt64) -> Entry? {
        guard let first = entries.min, first.dueNanos <= now else { return nil }
        return entries.removeMin()
    }
}
