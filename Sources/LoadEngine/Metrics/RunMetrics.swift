import Histogram
import Transport
import Wire

/// Everything one worker measures during a run; the workers' metrics add up to the run's.
///
/// Latency is recorded in microseconds, three significant digits, from each request's intended
/// send time to its completion, for requests that got an HTTP answer (transport failures and
/// timeouts are counted, not timed). Each interval of the timeline's resolution, once over,
/// goes to the run's shared `RunTimeline`. Requests meant to leave during the warmup are only counted, in `warmup`; the
/// measured figures and their seconds start when it ends.
struct RunMetrics: Sendable {
    /// Outcome totals.
    private(set) var counts = OutcomeCounts()
    /// Latency of answered requests, microseconds.
    private(set) var latency = Histogram.latency(digits: .three)
    /// Rejections by APNs reason (or `HTTP <status>` when the body had none).
    private var rejections = RejectionCounts()
    /// Transport failures by class (`FailureClass`'s raw value), the same for both transports.
    private(set) var erroredByKind: [String: Int] = [:]
    /// One message of each class of failure, in the transport's own words: the first seen.
    private(set) var erroredSamples: [String: String] = [:]
    /// Requests answered on each connection, keyed by its local port.
    private(set) var perConnection: [Int: Int] = [:]
    /// Answers whose `apns-id` did not echo the request's.
    private(set) var apnsIDMismatches = 0
    /// Open loop: how late each request left against its intended send time, microseconds.
    private(set) var scheduleLag = Histogram.latency(digits: .two)
    /// Outcomes of the requests meant to leave during the warmup, kept out of every other figure.
    private(set) var warmup = OutcomeCounts()
    /// The warmup's rejections by reason, so a server's totals can still be compared.
    private var warmupRejections = RejectionCounts()
    /// The broadcasts among `counts`, with their own latency and reach.
    private(set) var broadcasts = BroadcastBooks()

    /// Rejections by APNs reason's text (or `HTTP <status>` when the body had none).
    var rejectedByReason: [String: Int] { rejections.byReason }
    /// The warmup's rejections by reason's text, so a server's totals can still be compared.
    var warmupRejectedByReason: [String: Int] { warmupRejections.byReason }

    /// The current interval of the timeline, nanoseconds since `startNanos`, and what ended in it.
    private var intervalStart: UInt64 = 0
    private var intervalEnd: UInt64
    private var current = OutcomeCounts()
    private var currentLatency = Histogram.latency(digits: .two)
    private let startNanos: UInt64
    private let timeline: RunTimeline
    private let worker: Int

    /// Starts measuring at `startNanos` (a monotonic clock reading: the end of the warmup) for
    /// `worker`, whose seconds go to `timeline`.
    init(startNanos: UInt64, timeline: RunTimeline, worker: Int) {
        self.startNanos = startNanos
        self.timeline = timeline
        self.worker = worker
        intervalEnd = timeline.resolutionNanos
    }

    /// Counts one request handed to the transport at `now`, meant to leave at `intendedAt` (a
    /// `broadcast` in `broadcasts` too), and returns whether it belongs to the warmup (meant to
    /// leave before the measurement starts).
    mutating func recordSent(now: UInt64, intendedAt: UInt64, broadcast: Bool = false) -> Bool {
        if intendedAt < startNanos {
            warmup.sent += 1
            return true
        }
        advance(to: now)
        scheduleLag.record(max(1, (now &- min(now, intendedAt)) / 1000))
        counts.sent += 1
        current.sent += 1
        if broadcast { broadcasts.counts.sent += 1 }
        return false
    }

    /// Counts one completion observed at `now` of a request `recordSent` put in the warmup or not;
    /// a broadcast's (`broadcastTo` its subscribers' count) also in `broadcasts`, and not checked
    /// for an echoed `apns-id`, since broadcast answers carry `apns-request-id` instead.
    mutating func record(
        _ completion: PushCompletion,
        now: UInt64,
        warmup isWarmup: Bool,
        broadcastTo subscribers: Int? = nil
    ) {
        if isWarmup {
            warmup.count(completion.outcome)
            if case .response(let status, let body) = completion.outcome, status != 200 {
                warmupRejections.count(status: status, body: body)
            }
            return
        }
        advance(to: now)
        broadcasts.record(completion, now: now, subscribers: subscribers)
        switch completion.outcome {
        case .response(let status, let body):
            let micros = max(1, (now &- completion.intendedAt) / 1000)
            latency.record(micros)
            currentLatency.record(micros)
            perConnection[completion.localPort, default: 0] += 1
            if !completion.apnsIDEchoed && subscribers == nil { apnsIDMismatches += 1 }
            if status == 200 {
                counts.succeeded += 1
                current.succeeded += 1
            } else {
                counts.rejected += 1
                current.rejected += 1
                rejections.count(status: status, body: body)
            }
        case .timedOut:
            counts.timedOut += 1
            current.timedOut += 1
        case .failed(let kind, let message):
            counts.errored += 1
            current.errored += 1
            erroredByKind[kind.rawValue, default: 0] += 1
            if erroredSamples[kind.rawValue] == nil { erroredSamples[kind.rawValue] = message }
        }
    }

    /// Counts requests abandoned when a run was cut short as timed out, so none goes missing:
    /// `measured` of them sent after the warmup (`broadcasts` of those broadcasts), `warmup`
    /// during it.
    mutating func recordAbandoned(
        measured: Int,
        broadcasts abandonedBroadcasts: Int,
        warmup abandonedInWarmup: Int,
        now: UInt64
    ) {
        warmup.timedOut += abandonedInWarmup
        guard measured > 0 else { return }
        advance(to: now)
        counts.timedOut += measured
        current.timedOut += measured
        broadcasts.counts.timedOut += abandonedBroadcasts
    }

    /// Closes the last, usually partial, interval and tells the timeline this worker is done.
    mutating func finish(now: UInt64) {
        let now = max(now, startNanos)  // a run may end within its warmup
        advance(to: now)
        let end = now - startNanos
        timeline.add(
            current,
            latency: currentLatency,
            fromNanos: intervalStart,
            toNanos: max(end, intervalStart + 1),
            nextNanos: .max,
            worker: worker
        )
        timeline.finish(worker: worker)
    }

    /// Adds another worker's totals (the per-second series is already shared).
    mutating func add(_ other: RunMetrics) {
        counts.add(other.counts)
        latency.add(other.latency)
        scheduleLag.add(other.scheduleLag)
        rejections.add(other.rejections)
        erroredByKind.merge(other.erroredByKind, uniquingKeysWith: +)
        erroredSamples.merge(other.erroredSamples) { mine, _ in mine }
        perConnection.merge(other.perConnection, uniquingKeysWith: +)
        apnsIDMismatches += other.apnsIDMismatches
        broadcasts.add(other.broadcasts)
        warmup.add(other.warmup)
        warmupRejections.add(other.warmupRejections)
    }

    /// Hands the current interval over once `now` is past it, and opens the one `now` is in at
    /// the timeline's resolution then.
    private mutating func advance(to now: UInt64) {
        let elapsed = now > startNanos ? now - startNanos : 0
        guard elapsed >= intervalEnd else { return }
        let resolution = timeline.resolutionNanos
        let next = elapsed / resolution * resolution
        timeline.add(
            current,
            latency: currentLatency,
            fromNanos: intervalStart,
            toNanos: intervalEnd,
            nextNanos: next,
            worker: worker
        )
        // A new histogram, not `reset()`: reset zeroes the counts one at a time through the
        // package's unspecialised generic code, some 290,000 instructions an interval against
        // about 40,000 for one zero-filled allocation.
        if currentLatency.totalCount > 0 { currentLatency = Histogram.latency(digits: .two) }
        current = OutcomeCounts()
        intervalStart = next
        intervalEnd = next + resolution
    }
}
