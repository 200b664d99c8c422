import Synchronization
import Workload

/// Matches the pushes a service sent to the calls that caused them, as they arrive, and keeps
/// for each call when each of its pushes arrived after the call's intended time.
///
/// A push is matched by the `pushbench_event` member PushBench put in the call's content state,
/// when the service passed it through; otherwise the k-th push to an activity's token answers the
/// k-th call that reaches the activity. A push to a token no activity has, to an activity beyond
/// its calls, or beyond the pushes its call should cause, is `extra`.
public final class FanoutBook: Sendable {
    /// When one call's pushes arrived, milliseconds after its intended time: the first, half of
    /// them, 99% and the last; each `nil` until that many arrived.
    public struct Milestones: Sendable, Equatable {
        public var firstMs: Double?
        public var halfMs: Double?
        public var p99Ms: Double?
        public var lastMs: Double?
    }

    /// One call's fan-out.
    public struct CallFanout: Sendable {
        public var call: Int
        public var expected: Int
        public var arrived: Int
        public var milestones: Milestones
    }

    private struct State {
        var startNs: Int64 = 0
        /// Each call's arrivals, nanoseconds after its intended time.
        var arrivals: [[Int64]]
        /// Each call's activities whose push was accepted (200), a bit each from its first.
        var accepted: [[UInt64]]
        /// Each activity's pushes matched by order so far.
        var matchedByOrder: [Int32]
        var extra = 0
        var tagged = 0
        var lastArrivalNs: Int64 = 0
        var matched = 0
    }

    public let workload: ServiceWorkload
    private let activityOfToken: [String: Int32]
    /// The calls reaching each activity, in order: by group, or by activity with `per: activity`.
    private let callsOfTarget: [[Int32]]
    /// Each activity's target in `callsOfTarget`, -1 for an activity no call reaches.
    private let targetOfActivity: [Int32]
    private let state: Mutex<State>

    /// An empty book for `workload`'s calls.
    public init(workload: ServiceWorkload) {
        self.workload = workload
        var tokens: [String: Int32] = [:]
        tokens.reserveCapacity(workload.activities)
        for activity in 0..<workload.activities { tokens[workload.updateToken(of: activity)] = Int32(activity) }
        activityOfToken = tokens
        let targets =
            workload.perActivity ? workload.activities : workload.scenario.cohorts.reduce(0) { $0 + $1.groups }
        var calls = Array(repeating: [Int32](), count: targets)
        var targetOfActivity = Array(repeating: Int32(-1), count: workload.activities)
        for (index, call) in workload.calls.enumerated() {
            let target = workload.perActivity ? call.activities.lowerBound : call.group
            calls[target].append(Int32(index))
            for activity in call.activities { targetOfActivity[activity] = Int32(target) }
        }
        callsOfTarget = calls
        self.targetOfActivity = targetOfActivity
        state = Mutex(
            State(
                arrivals: Array(repeating: [], count: workload.calls.count),
                accepted: workload.calls.map { Array(repeating: 0, count: ($0.activities.count + 63) / 64) },
                matchedByOrder: Array(repeating: 0, count: workload.activities)
            )
        )
    }

    /// Sets the calls' clock: UNIX nanoseconds of the first call's intended time.
    public func start(atNs startNs: Int64) {
        state.withLock { $0.startNs = startNs }
    }

    /// Books a push that arrived at `receivedNs` (UNIX nanoseconds) with `body`. Safe from any
    /// thread.
    /// - Returns: the due time (microseconds after the start) of the call it answers, or `nil`
    ///   when it is extra: the lag book's match.
    @discardableResult
    public func arrived(_ push: TrafficRecord, receivedNs: Int64, body: [UInt8]) -> Int64? {
        let activity = activityOfToken[push.deviceToken].map(Int.init)
        let tag = EventTag.read(body)
        return state.withLock { state -> Int64? in
            state.lastArrivalNs = max(state.lastArrivalNs, receivedNs)
            guard let activity else {
                state.extra += 1
                return nil
            }
            let call: Int
            if let tag, tag < workload.calls.count, workload.calls[tag].activities.contains(activity) {
                call = tag
                state.tagged += 1
            } else {
                let target = Int(targetOfActivity[activity])
                let k = Int(state.matchedByOrder[activity])
                guard target >= 0, k < callsOfTarget[target].count else {
                    state.extra += 1
                    return nil
                }
                call = Int(callsOfTarget[target][k])
                state.matchedByOrder[activity] += 1
            }
            guard state.arrivals[call].count < workload.calls[call].activities.count else {
                state.extra += 1
                return nil
            }
            state.matched += 1
            if push.status == 200 {
                let offset = activity - workload.calls[call].activities.lowerBound
                state.accepted[call][offset / 64] |= 1 << UInt64(offset % 64)
            }
            let due = workload.calls[call].dueMicroseconds
            state.arrivals[call].append(receivedNs - state.startNs - due * 1000)
            return due
        }
    }

    /// Pushes matched to a call so far, and UNIX nanoseconds of the last arrival (0 before one).
    public var progress: (matched: Int, lastArrivalNs: Int64) {
        state.withLock { ($0.matched, $0.lastArrivalNs) }
    }

    /// Whether call `call`'s push to `activity` arrived and was accepted.
    public func accepted(call: Int, activity: Int) -> Bool {
        let offset = activity - workload.calls[call].activities.lowerBound
        guard workload.calls[call].activities.contains(activity) else { return false }
        return state.withLock { $0.accepted[call][offset / 64] & (1 << UInt64(offset % 64)) != 0 }
    }

    /// Whether every call's pushes have all arrived.
    public var complete: Bool { progress.matched == workload.expectedPushes }

    /// Each call's fan-out now.
    public var calls: [CallFanout] {
        state.withLock { state in
            state.arrivals.enumerated().map { index, times in
                let expected = workload.calls[index].activities.count
                return CallFanout(
                    call: index,
                    expected: expected,
                    arrived: times.count,
                    milestones: Self.milestones(times.sorted(), expected: expected)
                )
            }
        }
    }

    /// Pushes no call explains, and pushes matched by the content state's tag.
    public var extraAndTagged: (extra: Int, tagged: Int) { state.withLock { ($0.extra, $0.tagged) } }

    /// The first, half, 99% and last of `expected` arrivals in `sorted`, milliseconds.
    static func milestones(_ sorted: [Int64], expected: Int) -> Milestones {
        func at(_ share: Double) -> Double? {
            let rank = max(1, Int((share * Double(expected)).rounded(.up)))
            return rank <= sorted.count ? Double(sorted[rank - 1]) / 1e6 : nil
        }
        return Milestones(firstMs: at(0), halfMs: at(0.5), p99Ms: at(0.99), lastMs: at(1))
    }
}
