import Histogram
import LoadEngine
import Synchronization
import Workload

/// Matches what the mock received against what the sender was asked to send, as pushes arrive:
/// a push that carries its event's number (`EventTag`, which the events file's payloads hold)
/// answers that event; one that does not (its sender rebuilt the payload) answers its token's
/// first event not yet answered. A sender that once sends a token another token's event number
/// reuses payloads (h2load sends every push the first event's body), so from then on its pushes
/// are matched by order. A push's lag is its arrival minus its event's intended time.
///
/// A push for an event a push the mock accepted had already answered is a `duplicate` (a sender
/// that sent an update twice), measured apart and with no lag: lag counts first arrivals only.
/// A push to a token outside the schedule or beyond its events is `extra`, as is a retry of a
/// push the mock refused (its event was answered by the first attempt; without the number, a
/// push repeating the refused one's body). Events no push answered are `missing`. A push that
/// arrives before its event was due counts as 0 lag and as `early`.
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
        /// Pushes for an event an accepted push had already answered.
        public var duplicates: Int
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

    /// How an event was answered.
    private enum Answer: UInt8 {
        case none, accepted, refused
    }

    /// What an arriving push is.
    private enum Match {
        /// The first answer to the event due this many microseconds after the start.
        case event(dueMicroseconds: Int64)
        case extra
        case duplicate
    }

    private struct State {
        var schedule: PushSchedule
        /// Each slot's events, by their place among the token's: how each was answered.
        var answers: [[Answer]]
        /// Each slot's first event that may still be unanswered: where matching by order looks.
        var nextByOrder: [Int]
        /// Whether the sender sent a token another token's event number: it reuses payloads,
        /// so the numbers say nothing of which event a push answers.
        var reusesPayloads = false
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
                answers: (0..<schedule.tokens).map {
                    Array(repeating: Answer.none, count: schedule.eventCount(slot: $0))
                },
                nextByOrder: Array(repeating: 0, count: schedule.tokens),
                originNs: startNs,
                startNs: startNs,
                figures: Figures(
                    events: schedule.events,
                    pushes: 0,
                    accepted: 0,
                    matched: 0,
                    extra: 0,
                    duplicates: 0,
                    early: 0,
                    lag: Histogram<UInt64>.latency(digits: .three),
                    intervals: []
                )
            )
        )
    }

    /// Books `push`, whose request body was `body`, which arrived at `receivedNs` (UNIX
    /// nanoseconds): matched by the event number in its body, else by order. Safe from any
    /// thread.
    public func arrived(_ push: TrafficRecord, receivedNs: Int64, body: [UInt8]) {
        let tag = EventTag.read(body)
        book(push, receivedNs: receivedNs) { Self.match(push, tag: tag, accepted: push.status == 200, in: &$0) }
    }

    /// Books `push` as the answer to the event due `due` microseconds after the start, as a
    /// caller that matched it itself found (a service's fan-out book); `nil` books it as extra.
    public func arrived(_ push: TrafficRecord, receivedNs: Int64, matchedDueMicroseconds due: Int64?) {
        book(push, receivedNs: receivedNs) { _ in due.map { .event(dueMicroseconds: $0) } ?? .extra }
    }

    private func book(_ push: TrafficRecord, receivedNs: Int64, match: (inout State) -> Match) {
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
            let due: Int64
            switch match(&state) {
            case .event(let dueMicroseconds): due = dueMicroseconds
            case .extra:
                state.figures.extra += 1
                return
            case .duplicate:
                state.figures.duplicates += 1
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

    /// What `push` is: the first answer to an event (by its `tag`, else by order), a
    /// duplicate, or extra.
    private static func match(_ push: TrafficRecord, tag: Int?, accepted: Bool, in state: inout State) -> Match {
        guard let slot = state.schedule.slot(of: push.deviceToken) else { return .extra }
        let retried = state.refusedBody.removeValue(forKey: slot).map { $0 == push.payloadDigest } ?? false
        if !accepted { state.refusedBody[slot] = push.payloadDigest }
        let place = tag.flatMap { state.schedule.place(ofEvent: $0) }
        if let place, place.slot != slot { state.reusesPayloads = true }
        let k: Int
        if let place, !state.reusesPayloads {
            switch state.answers[slot][place.k] {
            case .none: k = place.k
            case .accepted: return .duplicate
            case .refused: return .extra
            }
        } else {
            guard !retried else { return .extra }
            var next = state.nextByOrder[slot]
            while next < state.answers[slot].count, state.answers[slot][next] != .none { next += 1 }
            state.nextByOrder[slot] = next
            guard next < state.answers[slot].count else { return .extra }
            k = next
        }
        state.answers[slot][k] = accepted ? .accepted : .refused
        return .event(dueMicroseconds: state.schedule.due(slot: slot, k: k)!)
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
            return state.answers[slot][k] == .accepted
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
