import Arrivals
import Histogram
import LoadEngine
import Synchronization
import Workload

/// Matches what the mock received against what the sender or service was asked to send, as
/// pushes arrive, on one clock: every time it takes is in the same nanoseconds (the profile's
/// monotonic clock), and a push's lag is its arrival minus its event's intended time.
///
/// A push is matched by what it is: its kind (`aps.event`: an update never answers an end, nor
/// the reverse) and its token. One that carries its event's identity (`EventTag`: a sender's
/// event number, a service's call number) answers that event; one that does not (its sender
/// rebuilt the payload) answers its token's first event of its kind not yet answered. A sender
/// that once sends a token an identity that is not one of its own reuses payloads (h2load sends
/// every push the first event's body), so from then on its pushes are matched by order.
///
/// For a service, an untagged update answers the latest update its activity was owed by the
/// time it came: the service coalesced the earlier ones into it, and they are `superseded`, not
/// missing. A later push that finds nothing else to answer takes the earliest superseded one
/// back (a service that was behind, not coalescing). A push that arrives before the clock
/// started, or a service's before any call to its token was sent (a welcome push at
/// registration), is `beforeClock`, matched to nothing.
///
/// A push for an event a push the mock accepted had already answered is a `duplicate` (an update
/// sent twice), counted apart and with no lag: lag counts first arrivals only. A push to a token
/// outside the schedule or beyond its events is `extra`, as is a retry of a push the mock
/// refused (its event was answered by the first attempt; without the identity, a push repeating
/// the refused one's body). Events no push answered are `missing`. A push that arrives before
/// its event was due counts as 0 lag and as `early`.
///
/// For a service, the book also keeps each call's fan-out: when each of its pushes arrived.
/// When the service learns its tokens from the devices as they report them (a lifecycle,
/// `tokensReported`), a call owes a push only to the activities whose report the service had
/// answered before the call was sent: the book's events are those owed (and any answered all
/// the same), and an untagged push is matched among the calls sent after its token was reported.
public final class ArrivalBook: Sendable {
    /// The books at one moment.
    public struct Figures: Sendable {
        /// Events in the schedule.
        public var events: Int
        /// Pushes the mock received, matched or not.
        public var pushes = 0
        /// Of them, answered 200.
        public var accepted = 0
        /// Events a push answered, and of them, those matched by the identity in the push.
        public var matched = 0
        public var matchedByTag = 0
        /// Pushes no event explains.
        public var extra = 0
        /// Pushes for an event an accepted push had already answered.
        public var duplicates = 0
        /// Matched pushes that arrived before their event was due.
        public var early = 0
        /// Owed updates a later untagged push of their activity answered in their stead: the
        /// service coalesced them. With how stale the newest of them was when that push came.
        public var superseded = 0
        public var staleness = Histogram<UInt64>.latency(digits: .two)
        /// Pushes that arrived before anything owed them, by kind: before the clock started, or,
        /// for a service, to a token before any call to it was sent. Matched to nothing.
        public var beforeClock = KindCounts()
        /// The owed updates and the owed ends apart: each kind's owed, matched, early and lag.
        public var updates = KindFigures()
        public var ends = KindFigures()
        /// Lag of every matched push, microseconds.
        public var lag = Histogram<UInt64>.latency(digits: .three)
        /// The clock's nanoseconds at the first and last arrival, when any arrived.
        public var firstArrivalNs: Int64?
        public var lastArrivalNs: Int64?
        /// Arrivals in each second after `beginIntervals` (earlier ones counted in the first).
        public var intervals: [Interval] = []

        /// Events no push answered, and none superseded.
        public var missing: Int { max(0, events - matched - superseded) }

        /// The books of `events` events before any push arrived.
        public init(events: Int) { self.events = events }
    }

    /// What arrived in one second of the run.
    public struct Interval: Sendable {
        /// Pushes received and accepted.
        public var pushes = 0
        public var accepted = 0
        /// Lag of the matched pushes that arrived in it, microseconds, two significant digits.
        public var lag = Histogram<UInt64>.latency(digits: .two)

        /// An empty second.
        public init() {}
    }

    /// When one call's pushes arrived, milliseconds after its intended time: the first, half of
    /// them, 99% and the last; each `nil` until that many arrived.
    public struct Milestones: Sendable, Equatable {
        public var firstMs: Double?
        public var halfMs: Double?
        public var p99Ms: Double?
        public var lastMs: Double?
    }

    /// One call's fan-out: of the pushes it owed, those that arrived, and those a later push
    /// superseded (its milestones count over the rest).
    public struct CallFanout: Sendable {
        public var call: Int
        public var expected: Int
        public var arrived: Int
        public var superseded = 0
        public var milestones: Milestones
    }

    /// How an event was answered, in a byte: not yet, refused, superseded by a later push, or
    /// accepted with its push's `apns-priority` (what the device budget spends).
    private struct Answer: Equatable {
        var code: UInt8

        static let none = Answer(code: 0)
        static let refused = Answer(code: 1)
        static let superseded = Answer(code: 255)
        static func accepted(priority: Int) -> Answer { Answer(code: 2 &+ UInt8(clamping: max(0, min(priority, 250)))) }

        var isAccepted: Bool { code >= 2 && self != .superseded }
        /// The accepted push's priority, when one answered.
        var acceptedPriority: Int? { isAccepted ? Int(code - 2) : nil }
    }

    /// What an arriving push is.
    private enum Match {
        /// The first answer to event `event` (an index among all the schedule's), found by its
        /// identity or by order.
        case event(event: Int, byTag: Bool)
        case extra
        case duplicate
        /// A service's push to a token no call had yet asked anything of: its own (a welcome
        /// push), counted with those before the clock.
        case unprompted
    }

    /// A refused push: its body's digest, which tells a retry of it, and the event it
    /// answered (`nil`: it answered none), which an accepted retry delivers.
    private struct RefusedPush {
        var digest: UInt64
        var event: Int?
    }

    private struct State {
        /// How each event was answered, flat as the sealed schedule keeps them.
        var answers: [Answer]
        /// Each slot's first event (its place among the token's) that may still be
        /// unanswered: where matching by order looks.
        var nextByOrder: [Int32]
        /// Whether the sender sent a token an identity not its own: it reuses payloads, so the
        /// identities say nothing of which event a push answers.
        var reusesPayloads = false
        /// The last refused push to a slot, until the slot's next push.
        var refusedBody: [Int: RefusedPush] = [:]
        /// Where the per-second intervals count from, and the clock's time of the events' 0:
        /// `nil` until a service's clock starts.
        var originNs: Int64
        var startNs: Int64?
        var figures: Figures
        /// Each call's arrivals, nanoseconds after its intended time, and its owed pushes that
        /// were superseded; none for a sender.
        var callArrivals = FanoutTimes()
        var supersededByCall: [Int32]
        /// When each slot's last update push that answered an update came; a service's only.
        var lastUpdate: Moments
        /// When the service learned each slot's token (before the start, unless its tokens are
        /// reported; not yet until then), and when each call was sent: a service's not yet until
        /// then, a sender's events before the start.
        var learned: Moments
        var sent: Moments
        let tokensReported: Bool
        /// With reported tokens, the events a push was expected for (owed, or answered all the
        /// same), in all and by call: kept as tokens are learned, calls sent and pushes matched,
        /// since the progress line reads them several times a second.
        var expectedTotal = 0
        var expectedByCall: [Int]
        var expectedEnds = 0

        /// Whether a push was expected for `event`, `slot`'s for `call`.
        func expects(event: Int, slot: Int, call: Int) -> Bool {
            answers[event] != .none || owes(slot: slot, call: call)
        }

        /// Counts `event`'s call (an end, or not) among the expected `step` times (1 or -1).
        mutating func expect(call: Int, ends: Bool, _ step: Int) {
            expectedTotal += step
            expectedByCall[call] += step
            if ends { expectedEnds += step }
        }

        /// Takes back one of `call`'s superseded events: a push came for it after all.
        mutating func unsupersede(call: Int) {
            figures.superseded -= 1
            supersededByCall[call] -= 1
        }

        /// Whether call `call` owed a push to `slot`'s token: it was sent once the service knew
        /// the token.
        func owes(slot: Int, call: Int) -> Bool { sent[call] != .notYet && sent[call] >= learned[slot] }
    }

    /// What the book holds of one token, for saying why its activity was never updated.
    public struct TokenEvidence: Sendable, Equatable {
        /// Events owed a push to it, and of those, how many a push the mock accepted answered,
        /// and how many only refused pushes did.
        public var owed = 0
        public var accepted = 0
        public var refused = 0
        /// The calls that owed it a push.
        public var owedCalls: [Int] = []
        /// When the first of them was sent, on the book's clock.
        public var firstOwedSentNs: Int64?
    }

    private let schedule: SealedSchedule
    /// The schedule's events by call, when tokens are reported.
    private let eventsByCall: EventsByCall?
    /// Pushes each call must cause, for a service; empty for a sender.
    private let callSizes: [Int]
    /// Whether an untagged update answers the latest update owed by its arrival (a service's
    /// calls due on a clock), not the first: with every call due at once there is no latest.
    private let coalesces: Bool
    /// Ends among the schedule's events.
    private let scheduledEnds: Int
    private let state: Mutex<State>

    /// Creates the book for `schedule`, whose times count from `startNs` (a service's: `nil`,
    /// until `start(atNs:)`); with `callSizes` (a service's calls, each the pushes it must cause)
    /// it keeps each call's fan-out, and takes coalesced updates as superseded. With
    /// `tokensReported`, the service learns each token only when told (`learned`), and a call
    /// owes pushes only once sent (`sent`). With `coalesces` (calls due over time), an untagged
    /// update answers the latest update owed by its arrival.
    public init(
        schedule: PushSchedule,
        startNs: Int64?,
        callSizes: [Int] = [],
        tokensReported: Bool = false,
        coalesces: Bool = true
    ) {
        let schedule = schedule.sealed()
        self.schedule = schedule
        self.callSizes = callSizes
        self.coalesces = coalesces && !callSizes.isEmpty
        scheduledEnds = (0..<schedule.events).count { schedule.phase(ofEvent: $0) == .end }
        eventsByCall = tokensReported ? EventsByCall(schedule) : nil
        state = Mutex(
            State(
                answers: Array(repeating: .none, count: schedule.events),
                nextByOrder: Array(repeating: 0, count: schedule.tokens),
                originNs: startNs ?? 0,
                startNs: startNs,
                figures: Figures(events: schedule.events),
                supersededByCall: callSizes.isEmpty ? [] : Array(repeating: 0, count: schedule.identityCount),
                lastUpdate: Moments(count: callSizes.isEmpty ? 0 : schedule.tokens, all: .notYet),
                learned: Moments(count: schedule.tokens, all: tokensReported ? .notYet : .beforeTheStart),
                sent: Moments(count: schedule.identityCount, all: callSizes.isEmpty ? .beforeTheStart : .notYet),
                tokensReported: tokensReported,
                expectedByCall: tokensReported ? Array(repeating: 0, count: schedule.identityCount) : []
            )
        )
    }

    /// The service answered a report of `token` with success at `atNs`: from then on, each call
    /// sent owes it a push. The first such answer counts.
    public func learned(token: String, atNs: Int64) {
        guard let slot = schedule.slot(of: token) else { return }
        state.withLock { state in
            guard .at(atNs) < state.learned[slot] else { return }
            recounting(schedule.events(of: slot).lazy.map { ($0, slot) }, in: &state) { $0.learned[slot] = .at(atNs) }
        }
    }

    /// Call `call` was sent to the service at `atNs`.
    public func sent(call: Int, atNs: Int64) {
        guard call < schedule.identityCount else { return }
        state.withLock { state in
            guard .at(atNs) < state.sent[call] else { return }
            guard let eventsByCall else {
                state.sent[call] = .at(atNs)
                return
            }
            let events = eventsByCall.events(of: call).lazy.map { ($0, self.schedule.slot(ofEvent: $0)) }
            recounting(events, in: &state) { $0.sent[call] = .at(atNs) }
        }
    }

    /// Applies `change` (a token learned, or a call sent, earlier than the book knew), keeping
    /// the expected counts right over `events` (each with its slot), the only ones it can move:
    /// uncounted before it, counted again after.
    private func recounting(
        _ events: some Sequence<(Int, Int)>,
        in state: inout State,
        _ change: (inout State) -> Void
    ) {
        for (event, slot) in events {
            let call = schedule.identity(ofEvent: event)
            if state.expects(event: event, slot: slot, call: call) { state.expect(call: call, ends: ends(event), -1) }
        }
        change(&state)
        for (event, slot) in events {
            let call = schedule.identity(ofEvent: event)
            if state.expects(event: event, slot: slot, call: call) { state.expect(call: call, ends: ends(event), 1) }
        }
    }

    /// Whether event `event` is an end push.
    private func ends(_ event: Int) -> Bool { schedule.phase(ofEvent: event) == .end }

    /// Books `push`, which arrived at its `receivedNs` on the book's clock: matched by its kind
    /// and the identity its body carried, else by its kind and order; before the clock started,
    /// counted and matched to nothing. Safe from any thread.
    public func arrived(_ push: Arrival) {
        let receivedNs = push.receivedNs
        let tag = push.tag
        let accepted = push.accepted
        state.withLock { state in
            let second = count(push, receivedNs: receivedNs, in: &state)
            guard let startNs = state.startNs else { return }
            let nowUs = (receivedNs - startNs) / 1000
            switch match(push, tag: tag, accepted: accepted, nowUs: nowUs, in: &state) {
            case .event(let event, let byTag):
                let lagNs = receivedNs - startNs - schedule.due(ofEvent: event) * 1000
                if lagNs < 0 { state.figures.early += 1 }
                let lagUs = UInt64(max(0, lagNs) / 1000)
                state.figures.matched += 1
                if byTag { state.figures.matchedByTag += 1 }
                _ = state.figures.lag.record(lagUs)
                _ = state.figures.intervals[second].lag.record(lagUs)
                if ends(event) {
                    state.figures.ends.record(lagNs: lagNs)
                } else {
                    state.figures.updates.record(lagNs: lagNs)
                    recordCadence(ofSlot: schedule.slot(ofEvent: event), atNs: receivedNs, in: &state)
                }
                if !callSizes.isEmpty {
                    // An early push is in its call's fan-out at 0: its lead is in the kind's books.
                    state.callArrivals.append(call: schedule.identity(ofEvent: event), lagNs: max(0, lagNs))
                }
            case .extra:
                state.figures.extra += 1
            case .duplicate:
                state.figures.duplicates += 1
            case .unprompted:
                state.figures.beforeClock.count(push.event)
            }
        }
    }

    /// Books the time since `slot`'s last update push, for a service.
    private func recordCadence(ofSlot slot: Int, atNs receivedNs: Int64, in state: inout State) {
        guard !state.lastUpdate.isEmpty else { return }
        let last = state.lastUpdate.time(of: slot)
        if let last, receivedNs > last {
            _ = state.figures.updates.cadence.record(UInt64((receivedNs - last) / 1000))
        }
        if receivedNs > last ?? .min { state.lastUpdate[slot] = .at(receivedNs) }
    }

    /// Counts `push`, a push the service had to send that no call's schedule holds (a start to
    /// a push-to-start token), among those received: matched to no event, not extra (before the
    /// clock, counted as such too).
    public func counted(_ push: Arrival) {
        state.withLock { _ = count(push, receivedNs: push.receivedNs, in: &$0) }
    }

    /// Counts `push` among those received, in all and in its second; that second.
    private func count(_ push: Arrival, receivedNs: Int64, in state: inout State) -> Int {
        let accepted = push.accepted
        let second = max(0, Int((receivedNs - state.originNs) / 1_000_000_000))
        state.figures.pushes += 1
        if accepted { state.figures.accepted += 1 }
        if state.startNs == nil { state.figures.beforeClock.count(push.event) }
        if state.figures.firstArrivalNs == nil { state.figures.firstArrivalNs = receivedNs }
        state.figures.lastArrivalNs = max(state.figures.lastArrivalNs ?? receivedNs, receivedNs)
        while state.figures.intervals.count <= second { state.figures.intervals.append(Interval()) }
        state.figures.intervals[second].pushes += 1
        if accepted { state.figures.intervals[second].accepted += 1 }
        return second
    }

    /// What `push` is: the first answer to an event of its kind (by its `tag`, else by order), a
    /// duplicate, or extra. `nowUs` is its arrival on the events' clock.
    private func match(_ push: Arrival, tag: Int?, accepted: Bool, nowUs: Int64, in state: inout State) -> Match {
        guard let slot = schedule.slot(of: push.deviceToken) else { return .extra }
        let refused = state.refusedBody.removeValue(forKey: slot)
        let retried = refused.map { $0.digest == push.payloadDigest } ?? false
        var delivered: Int?
        if retried, accepted, let event = refused?.event, state.answers[event] == .refused {
            // An accepted retry: still extra to the fan-out, but the event was delivered, and
            // the device's budget spends it when the mock accepted it.
            state.answers[event] = .accepted(priority: push.priority)
            delivered = event
        }
        if !accepted { state.refusedBody[slot] = RefusedPush(digest: push.payloadDigest) }
        let kind = push.event
        let tagged = tag.flatMap { $0 < schedule.identityCount ? $0 : nil }
        let place = tagged.flatMap { schedule.place(of: $0, slot: slot) }
        if tagged != nil && place == nil { state.reusesPayloads = true }
        let first = schedule.events(of: slot).lowerBound
        let event: Int
        var byTag = false
        if let place, !state.reusesPayloads, Self.answers(kind, schedule.phase(ofEvent: first + place)) {
            // A tag of a call not yet sent is a template's, reused before anything was asked.
            if state.sent[schedule.identity(ofEvent: first + place)] == .notYet { return .unprompted }
            let answer = state.answers[first + place]
            if answer == .superseded {
                state.unsupersede(call: schedule.identity(ofEvent: first + place))
            } else if answer != .none {
                if answer == .refused && accepted { state.answers[first + place] = .accepted(priority: push.priority) }
                return answer.isAccepted && delivered != first + place ? .duplicate : .extra
            }
            event = first + place
            byTag = true
        } else {
            guard !retried, let next = nextByOrder(slot: slot, kind: kind, nowUs: nowUs, in: &state) else {
                // A service's push to a token no call had asked anything of yet is its own.
                let asked =
                    callSizes.isEmpty
                    || schedule.events(of: slot).contains { state.sent[schedule.identity(ofEvent: $0)] != .notYet }
                return asked ? .extra : .unprompted
            }
            event = next
        }
        let call = schedule.identity(ofEvent: event)
        if state.tokensReported && !state.owes(slot: slot, call: call) {
            state.expect(call: call, ends: ends(event), 1)
        }
        state.answers[event] = accepted ? .accepted(priority: push.priority) : .refused
        if !accepted { state.refusedBody[slot]?.event = event }
        return .event(event: event, byTag: byTag)
    }

    /// The event (an index among all the schedule's) an untagged push of `kind` (`nil`: any) to
    /// `slot`, arriving `nowUs` into the events' clock, answers: its first one of that kind
    /// unanswered whose call owed it a push; failing that, the last unanswered one whose call was
    /// sent (the service knew the token before PushBench read its answer to the report); failing
    /// that, the earliest one it superseded. `nil` when none is left.
    ///
    /// A service's update answers instead the latest owed update due by `nowUs` (and due after
    /// the first: updates due at once are answered in order), superseding the owed ones
    /// before it: the service coalesced them. With none due, it takes back the earliest it
    /// superseded (the service was behind, not coalescing) before it answers one early.
    private func nextByOrder(slot: Int, kind: LifecyclePhase?, nowUs: Int64, in state: inout State) -> Int? {
        let events = schedule.events(of: slot)
        var next = events.lowerBound + Int(state.nextByOrder[slot])
        while next < events.upperBound, state.answers[next] != .none { next += 1 }
        state.nextByOrder[slot] = Int32(next - events.lowerBound)
        let coalesces = self.coalesces && kind == .update
        var latestDue: (event: Int, firstDueUs: Int64)?
        var early: Int?
        var sentBefore: Int?
        for event in next..<events.upperBound where state.answers[event] == .none {
            guard Self.answers(kind, schedule.phase(ofEvent: event)) else { continue }
            let call = schedule.identity(ofEvent: event)
            guard state.owes(slot: slot, call: call) else {
                if latestDue == nil, state.sent[call] != .notYet { sentBefore = event }
                continue
            }
            let dueUs = schedule.due(ofEvent: event)
            guard coalesces, dueUs <= nowUs else {
                early = event
                break
            }
            if let first = latestDue?.firstDueUs {
                if dueUs > first { latestDue = (event, first) }
            } else {
                latestDue = (event, dueUs)
            }
        }
        if let chosen = latestDue?.event {
            supersede(slot: slot, from: next, upTo: chosen, nowUs: nowUs, in: &state)
            return chosen
        }
        if coalesces, let reclaimed = reclaimSuperseded(in: events, kind: kind, in: &state) { return reclaimed }
        return early ?? sentBefore ?? reclaimSuperseded(in: events, kind: kind, in: &state)
    }

    /// Whether a push of `kind` (`nil`: none said) may answer an event of `phase`: an update
    /// never answers an end, nor the reverse. A start to an update token, or an event that is a
    /// start (a sender's, to a push-to-start token), has no kind to keep apart.
    private static func answers(_ kind: LifecyclePhase?, _ phase: LifecyclePhase) -> Bool {
        guard let kind, kind != .start, phase != .start else { return true }
        return kind == phase
    }

    /// Marks `slot`'s owed updates in `from..<upTo`, unanswered, superseded by the push that
    /// answers `upTo`, arriving `nowUs` into the events' clock; books how stale the newest was.
    private func supersede(slot: Int, from: Int, upTo chosen: Int, nowUs: Int64, in state: inout State) {
        var newest: Int?
        for event in from..<chosen where state.answers[event] == .none && schedule.phase(ofEvent: event) == .update {
            guard state.owes(slot: slot, call: schedule.identity(ofEvent: event)) else { continue }
            state.answers[event] = .superseded
            state.figures.superseded += 1
            state.supersededByCall[schedule.identity(ofEvent: event)] += 1
            newest = event
        }
        if let newest { _ = state.figures.staleness.record(UInt64(max(0, nowUs - schedule.due(ofEvent: newest)))) }
    }

    /// The earliest event of `kind` among `events` that a push superseded, taken back as this
    /// push's to answer: its service was behind, not coalescing.
    private func reclaimSuperseded(in events: Range<Int>, kind: LifecyclePhase?, in state: inout State) -> Int? {
        for event in events where state.answers[event] == .superseded {
            guard Self.answers(kind, schedule.phase(ofEvent: event)) else { continue }
            state.unsupersede(call: schedule.identity(ofEvent: event))
            return event
        }
        return nil
    }

    /// Moves the events' 0 to `startNs` on the book's clock: a service's schedule starts once its
    /// activities are registered, which is known only then.
    public func start(atNs startNs: Int64) {
        state.withLock { $0.startNs = startNs }
    }

    /// Counts the per-second intervals from `originNs` on the book's clock: the sender's start,
    /// so they line up with its CPU and memory samples.
    public func beginIntervals(atNs originNs: Int64) {
        state.withLock { $0.originNs = originNs }
    }

    /// Whether the event of identity `identity` to `token` was answered by a push the mock
    /// accepted: for a sender, `identity` is the event's number; for a service, its call's.
    public func acceptedAnswer(token: String, identity: Int) -> Bool {
        acceptedPriority(token: token, identity: identity) != nil
    }

    /// The `apns-priority` the accepted push that answered the event of identity `identity` to
    /// `token` was sent with: what the device budget spends, whatever the schedule asked for;
    /// `nil` when no accepted push answered it.
    public func acceptedPriority(token: String, identity: Int) -> Int? {
        guard let slot = schedule.slot(of: token), let k = schedule.place(of: identity, slot: slot) else {
            return nil
        }
        let event = schedule.events(of: slot).lowerBound + k
        return state.withLock { $0.answers[event].acceptedPriority }
    }

    /// Events, pushes received, accepted and matched now, and the last arrival: what the
    /// progress line and the watch read, without copying the histograms (a copy held across the
    /// next arrival would make the mock's thread copy them again, under the lock).
    /// `matched` counts the events a later push superseded too: they need no push of their own.
    public var counts: (events: Int, pushes: Int, accepted: Int, matched: Int, lastArrivalNs: Int64?) {
        state.withLock {
            (
                expectedEvents(in: $0).total, $0.figures.pushes, $0.figures.accepted,
                $0.figures.matched + $0.figures.superseded, $0.figures.lastArrivalNs
            )
        }
    }

    /// The books now.
    public var figures: Figures {
        state.withLock { state in
            var figures = state.figures
            figures.events = expectedEvents(in: state).total
            figures.ends.owed = state.tokensReported ? state.expectedEnds : scheduledEnds
            figures.updates.owed = figures.events - figures.ends.owed
            return figures
        }
    }

    /// Each call's fan-out now; none for a sender.
    public var calls: [CallFanout] {
        state.withLock { state in
            let expected = expectedEvents(in: state).perCall ?? callSizes
            let superseded = state.supersededByCall.map(Int.init)
            var fanouts = state.callArrivals.fanouts(
                expected: superseded.isEmpty ? expected : zip(expected, superseded).map { $0 - $1 }
            )
            for index in fanouts.indices where !superseded.isEmpty {
                fanouts[index].expected = expected[index]
                fanouts[index].superseded = superseded[index]
            }
            return fanouts
        }
    }

    /// The events a push was expected for, in all and (with reported tokens) by call: every
    /// event, or those owed a push and those answered all the same.
    private func expectedEvents(in state: State) -> (total: Int, perCall: [Int]?) {
        state.tokensReported ? (state.expectedTotal, state.expectedByCall) : (state.figures.events, nil)
    }

    /// Whether the schedule holds an update (not only an end) for `token`: an activity it owes
    /// none can never be "never updated".
    public func schedulesUpdate(token: String) -> Bool {
        guard let slot = schedule.slot(of: token) else { return false }
        return schedule.events(of: slot).contains { schedule.phase(ofEvent: $0) == .update }
    }

    /// What the book holds of `token`: the events owed a push to it and how they were answered.
    public func evidence(token: String) -> TokenEvidence {
        guard let slot = schedule.slot(of: token) else { return TokenEvidence() }
        return state.withLock { state in
            var evidence = TokenEvidence()
            for event in schedule.events(of: slot) {
                let answer = state.answers[event]
                let call = schedule.identity(ofEvent: event)
                guard state.owes(slot: slot, call: call) else { continue }
                evidence.owed += 1
                evidence.owedCalls.append(call)
                if let sentNs = state.sent.time(of: call) {
                    evidence.firstOwedSentNs = min(evidence.firstOwedSentNs ?? .max, sentNs)
                }
                if answer.isAccepted {
                    evidence.accepted += 1
                } else if answer == .refused {
                    evidence.refused += 1
                }
            }
            return evidence
        }
    }

    /// The first, half, 99% and last of `expected` arrivals in `sorted`, milliseconds.
    public static func milestones(_ sorted: some RandomAccessCollection<Int64>, expected: Int) -> Milestones {
        func at(_ share: Double) -> Double? {
            let rank = max(1, Int((share * Double(expected)).rounded(.up)))
            return rank <= sorted.count
                ? Double(sorted[sorted.index(sorted.startIndex, offsetBy: rank - 1)]) / 1e6 : nil
        }
        return Milestones(firstMs: at(0), halfMs: at(0.5), p99Ms: at(0.99), lastMs: at(1))
    }
}
