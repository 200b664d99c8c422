import Histogram
import LoadEngine
import Synchronization
import Workload

/// Matches what the mock received against what the sender was asked to send, as pushes arrive:
/// the k-th push to a token answers that token's k-th event, and its lag is its arrival minus
/// the event's intended time.
///
/// A push to a token outside the schedule, or beyond its events, is `extra`, as is a push that
/// repeats the body of one the mock just refused to the same token (a retry: its event was
/// answered by the first attempt). Events no push answered are `missing`. A push that arrives
/// before its event was due counts as 0 lag and as `early`.
public final class LagBook: Sendable {
    /// The books at one moment.
    public struct Figures: Sendable {
        /// Events in the schedule.
        public var events: Int
        /// Pushes the mock received, matched or not.
        public var pushes: Int
        /// Of them, answered 200.
        public var accepted: Int
        /// Events a push answered.
        public var matched: Int
        /// Pushes no event explains.
        public var extra: Int
        /// Matched pushes that arrived before their event was due.
        public var early: Int
        /// Lag of every matched push, microseconds.
        public var lag: Histogram<UInt64>
        /// UNIX nanoseconds of the first and last arrival, when any arrived.
        public var firstArrivalNs: Int64?
        public var lastArrivalNs: Int64?
        /// Arrivals in each second after `beginIntervals` (earlier ones counted in the first).
        public var intervals: [Interval]

        /// Events no push answered.
        public var missing: Int { events - matched }
    }

    /// What arrived in one second of the run.
    public struct Interval: Sendable {
        /// Pushes received and accepted.
        public var pushes = 0
        public var accepted = 0
        /// Lag of the matched pushes that arrived in it, microseconds, two significant digits.
        public var lag = Histogram<UInt64>.latency(digits: .two)
    }

    private struct State {
        var schedule: PushSchedule
        /// Each slot's answered events: whether the push that answered each was accepted.
        var answers: [[Bool]]
        /// The body digest of the last refused push to a slot, until the slot's next push.
        var refusedBody: [Int: String] = [:]
        var originNs: Int64
        /// UNIX nanoseconds of `at_s` 0.
        var startNs: Int64
        var figures: Figures
    }

    private let state: Mutex<State>

    /// Creates the book for `schedule`, whose times count from `startNs` (UNIX nanoseconds).
    public init(schedule: PushSchedule, startNs: Int64) {
        state = Mutex(
            State(
                schedule: schedule,
                answers: Array(repeating: [], count: schedule.tokens),
                originNs: startNs,
                startNs: startNs,
                figures: Figures(
                    events: schedule.events,
                    pushes: 0,
                    accepted: 0,
                    matched: 0,
                    extra: 0,
                    early: 0,
                    lag: Histogram<UInt64>.latency(digits: .three),
                    intervals: []
                )
            )
        )
    }

    /// Books `push`, which arrived at `receivedNs` (UNIX nanoseconds), matched by order. Safe
    /// from any thread.
    public func arrived(_ push: TrafficRecord, receivedNs: Int64) {
        book(push, receivedNs: receivedNs) { Self.match(push, accepted: push.status == 200, in: &$0) }
    }

    /// Books `push` as the answer to the event due `due` microseconds after the start, as a
    /// caller that matched it itself found (a service's fan-out book); `nil` books it as extra.
    public func arrived(_ push: TrafficRecord, receivedNs: Int64, matchedDueMicroseconds due: Int64?) {
        book(push, receivedNs: receivedNs) { _ in due }
    }

    private func book(_ push: TrafficRecord, receivedNs: Int64, match: (inout State) -> Int64?) {
        let accepted = push.status == 200
        state.withLock { state in
            let second = max(0, Int((receivedNs - state.originNs) / 1_000_000_000))
            state.figures.pushes += 1
            if accepted { state.figures.accepted += 1 }
            if state.figures.firstArrivalNs == nil { state.figures.firstArrivalNs = receivedNs }
            state.figures.lastArrivalNs = max(state.figures.lastArrivalNs ?? receivedNs, receivedNs)
            while state.figures.intervals.count <= second { state.figures.intervals.append(Interval()) }
            state.figures.intervals[second].pushes += 1
            if accepted { state.figures.intervals[second].accepted += 1 }
            guard let due = match(&state) else {
                state.figures.extra += 1
                return
            }
            let lagNs = receivedNs - state.startNs - due * 1000
            if lagNs < 0 { state.figures.early += 1 }
            let lagUs = UInt64(max(0, lagNs) / 1000)
            state.figures.matched += 1
            _ = state.figures.lag.record(lagUs)
            _ = state.figures.intervals[second].lag.record(lagUs)
        }
    }

    /// The due time (µs after the start) of the event `push` answers, or `nil` if it is extra.
    private static func match(_ push: TrafficRecord, accepted: Bool, in state: inout State) -> Int64? {
        guard let slot = state.schedule.slot(of: push.deviceToken) else { return nil }
        let retried = state.refusedBody.removeValue(forKey: slot).map { $0 == push.payloadDigest } ?? false
        if !accepted { state.refusedBody[slot] = push.payloadDigest }
        guard !retried, let due = state.schedule.due(slot: slot, k: state.answers[slot].count) else { return nil }
        state.answers[slot].append(accepted)
        return due
    }

    /// Moves `at_s` 0 to `startNs` (UNIX nanoseconds): a service's schedule starts once its
    /// activities are registered, which is known only then.
    public func start(atNs startNs: Int64) {
        state.withLock { $0.startNs = startNs }
    }

    /// Counts the per-second intervals from `originNs` (UNIX nanoseconds): the sender's start,
    /// so they line up with its CPU and memory samples.
    public func beginIntervals(atNs originNs: Int64) {
        state.withLock { $0.originNs = originNs }
    }

    /// Whether `token`'s `k`-th event (from 0) was answered by a push the mock accepted.
    public func acceptedAnswer(token: String, k: Int) -> Bool {
        state.withLock { state in
            guard let slot = state.schedule.slot(of: token), k < state.answers[slot].count else { return false }
            return state.answers[slot][k]
        }
    }

    /// Events, pushes received and pushes accepted now: what the progress line shows, read
    /// without copying the histograms (a copy held across the next arrival would make the mock's
    /// thread copy them again, under the lock).
    public var counts: (events: Int, pushes: Int, accepted: Int) {
        state.withLock { ($0.figures.events, $0.figures.pushes, $0.figures.accepted) }
    }

    /// The books now.
    public var figures: Figures { state.withLock { $0.figures } }
}
