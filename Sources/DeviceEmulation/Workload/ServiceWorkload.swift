import ArrivalMatching
import Foundation
import LoadEngine
import RequestFiles
import Workload

/// What a profile hands a sender service through its API: every activity to register, and the
/// scenario's events as the calls the service is sent, each with the pushes it must cause.
///
/// Without a lifecycle, starts are not sent: registering an activity stands for the app having
/// started it and synced its tokens, and the clock's 0 is the first call. With one (`starts`),
/// the operator starts the push-to-start cohorts' activities and the local-start cohorts' apps
/// start their own (`ServiceWorkload+Lifecycle.swift`), and the clock's 0 is the first start. A
/// group's step (one goal, to every activity of the match) is one call with `per: group`, or one
/// call per activity with `per: activity`.
public struct ServiceWorkload: Sendable {
    /// One request to the service's event endpoint.
    public struct Call: Sendable {
        /// Microseconds after the events' start at which it is due.
        public var dueMicroseconds: Int64
        public var kind: EventKind
        public var phase: LifecyclePhase
        public var priority: Int
        public var activityKind: ActivityKind
        /// Its group, and the activities it must reach: the group's, or its own activity's.
        public var group: Int
        public var activities: Range<Int>
        public var state: ContentState
        /// Whether the service sends it on its own clock (`service_sends`): owed at its due
        /// time, never sent to the service's API.
        public var ownClock = false
    }

    public let scenario: Scenario
    public let calls: [Call]
    public let perActivity: Bool
    /// The operator's start calls and the apps' own starts, for a lifecycle; empty otherwise.
    public let starts: [Start]
    public let localStarts: [LocalStart]
    /// Whether the devices are played: started by the operator's calls or by their apps, then
    /// reporting their own tokens.
    public let isLifecycle: Bool
    /// Activities to register, `0..<activities`.
    public var activities: Int { scenario.activities }
    /// Mints every token a device holds, and reads back whose a token is: the fleet books a
    /// push with no index of tokens (`TokenMint`).
    public let tokens: TokenMint
    /// Each activity's start and end on the clock, when asked for (`keepsActivityTimes`).
    public let activityTimes: ActivityTimes

    /// The work of `scenario`: its first `requests` calls when given, due as `timing` says.
    /// Token rotations are left out: each activity keeps the update token it registered. With
    /// `startsPerActivity` (a lifecycle file's `start.per`), the scenario's starts are kept too;
    /// with `keepsActivityTimes`, each activity's start and end.
    /// - Throws: `ProfileError.badInput` for a scenario that broadcasts (a service is handed
    ///   groups to fan out to tokens), `WorkloadError` for an invalid one.
    public init(
        scenario: Scenario,
        perActivity: Bool,
        requests: Int?,
        timing: EventTiming,
        startsPerActivity: Bool? = nil,
        keepsActivityTimes: Bool = false,
        serviceSends: ServiceSends? = nil
    ) throws {
        if scenario.cohorts.contains(where: { $0.delivery == .broadcast }) {
            throw ProfileError.badInput(
                "--api: the scenario broadcasts to channels; a service is handed groups to fan out to tokens (use --delivery token)"
            )
        }
        // An app re-syncs a rotated token through the service's API; profile registers once, so
        // each activity keeps the token it registered (docs/profile-api.md).
        var scenario = scenario
        for index in scenario.cohorts.indices { scenario.cohorts[index].rotateFraction = 0 }
        let lifecycle = try startsPerActivity.map {
            try LifecycleStarts(scenario: &scenario, perActivity: $0, timing: timing)
        }
        var starts = lifecycle?.starts ?? []
        localStarts = lifecycle?.localStarts ?? []
        isLifecycle = lifecycle != nil
        self.scenario = scenario
        self.perActivity = perActivity
        guard scenario.activities < TokenMint.maxDevices else {
            throw ProfileError.badInput("--api: at most \(TokenMint.maxDevices - 1) activities (one device each)")
        }
        tokens = TokenMint(seed: scenario.seed)
        var (calls, times) = try Self.calls(of: scenario, perActivity: perActivity, limit: requests ?? .max)
        let origin = lifecycle?.originMs ?? times.first ?? 0
        activityTimes =
            keepsActivityTimes
            ? try ActivityTimes(scenario: scenario, originMs: origin, timing: timing) : ActivityTimes()
        for index in calls.indices {
            calls[index].dueMicroseconds = timing.dueMicroseconds(index: index, timeMs: times[index] - origin)
        }
        if let serviceSends { Self.owe(serviceSends, calls: &calls, starts: &starts, times: activityTimes) }
        self.starts = starts
        self.calls = calls
        expectedPushes = calls.reduce(0) { $0 + $1.activities.count }
    }

    /// The first `limit` calls of `scenario`, not yet timed, with each one's time on the
    /// scenario's clock (milliseconds).
    private static func calls(
        of scenario: Scenario,
        perActivity: Bool,
        limit: Int
    ) throws -> (calls: [Call], timesMs: [Int64]) {
        var calls: [Call] = []
        var times: [Int64] = []
        var grouping = try CallGrouping(scenario: scenario, perActivity: perActivity)
        while let (index, event) = grouping.next() {
            if index < calls.count {
                calls[index].activities = calls[index].activities.lowerBound..<(event.activity + 1)
                continue
            }
            guard index < limit else { break }
            times.append(event.timeMs)
            calls.append(
                Call(
                    dueMicroseconds: 0,
                    kind: event.kind,
                    phase: event.phase,
                    priority: event.priority,
                    activityKind: event.activityKind,
                    group: event.group,
                    activities: event.activity..<(event.activity + 1),
                    state: event.state
                )
            )
        }
        return (calls, times)
    }

    /// Moves what the service sends on its own clock to the moments it was told: each start
    /// push to the time its start call gave, each end to the time its token report gave; with
    /// `update: own`, each update stays at its change's moment. Those calls are never sent.
    private static func owe(_ sends: ServiceSends, calls: inout [Call], starts: inout [Start], times: ActivityTimes) {
        if let start = sends.start {
            for index in starts.indices {
                let owed = start.microseconds(
                    startUs: starts[index].dueMicroseconds,
                    activity: starts[index].activities.lowerBound,
                    times: times
                )
                starts[index].owedMicroseconds = owed ?? starts[index].dueMicroseconds
            }
        }
        if sends.ownUpdates {
            for index in calls.indices where calls[index].phase == .update { calls[index].ownClock = true }
        }
        guard let end = sends.end else { return }
        for index in calls.indices where calls[index].phase == .end {
            let activity = calls[index].activities.lowerBound
            calls[index].ownClock = true
            calls[index].dueMicroseconds =
                end.microseconds(startUs: calls[index].dueMicroseconds, activity: activity, times: times)
                ?? calls[index].dueMicroseconds
        }
    }

    /// The scenario's events the calls stand for, in order, each with the index of its call: what
    /// the budget model is fed for the pushes that arrived.
    public func events() throws -> some Sequence<(call: Int, event: WorkloadEvent)> {
        let count = calls.count
        var grouping = try CallGrouping(scenario: scenario, perActivity: perActivity)
        return AnyIterator { grouping.next().flatMap { $0.call < count ? $0 : nil } }.lazy.map { $0 }
    }

    /// Pushes the calls must cause: one per activity each reaches.
    public let expectedPushes: Int

    /// The hex update token of `activity`, which its registration syncs and its pushes go to.
    public func updateToken(of activity: Int) -> String { tokens.hex(device: activity, kind: .update) }

    /// The hex push-to-start token of `activity`'s device.
    public func pushToStartToken(of activity: Int) -> String { tokens.hex(device: activity, kind: .pushToStart) }

    /// The schedule the arrival book matches arrivals against: each call's pushes due at its
    /// time, of its kind (an update, or an end), identified by the call's number (the
    /// `pushbench_event` its content state carries).
    public var schedule: PushSchedule {
        var schedule = PushSchedule(devices: activities, mint: tokens)
        for (index, call) in calls.enumerated() {
            for activity in call.activities {
                schedule.add(
                    device: activity,
                    dueMicroseconds: call.dueMicroseconds,
                    identity: index,
                    phase: call.phase
                )
            }
        }
        return schedule
    }

    /// A book for this work's pushes, keeping each call's fan-out; its clock starts with the
    /// session's (a push before it is the service's own, `beforeClock`).
    public func arrivalBook() -> ArrivalBook {
        ArrivalBook(
            schedule: schedule,
            startNs: nil,
            callSizes: calls.map(\.activities.count),
            tokensReported: isLifecycle,
            coalesces: calls.contains { $0.dueMicroseconds > 0 }
        )
    }
}

/// The scenario's events other than starts, each with the index of the call it belongs to: a
/// group's step (the same group, kind and time, its activities one after another) is one call,
/// or, per activity, every event is its own.
private struct CallGrouping: IteratorProtocol {
    private var stream: ScenarioStream
    private let perActivity: Bool
    private var last: (group: Int, kind: EventKind, timeMs: Int64, activity: Int)?
    private var index = -1

    init(scenario: Scenario, perActivity: Bool) throws {
        stream = try ScenarioStream(scenario)
        self.perActivity = perActivity
    }

    mutating func next() -> (call: Int, event: WorkloadEvent)? {
        while let event = stream.next() {
            guard event.phase != .start else { continue }
            let continues =
                !perActivity
                && last.map {
                    $0.group == event.group && $0.kind == event.kind && $0.timeMs == event.timeMs
                        && $0.activity + 1 == event.activity
                } == true
            if !continues { index += 1 }
            last = (event.group, event.kind, event.timeMs, event.activity)
            return (index, event)
        }
        return nil
    }
}
