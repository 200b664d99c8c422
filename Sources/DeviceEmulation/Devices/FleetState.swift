import ArrivalMatching
import Basics
import Foundation
import HeapModule
import Histogram
import Workload

/// What each device draws before the run, from the scenario's seed: whether it ever reports,
/// re-issues its push-to-start token, rotates or is dismissed, and its report delay.
///
/// Only what a device draws as a yes or no is kept, a bit a device; the rest is drawn again from
/// the device's own generator each time it is needed (a pure function of the seed and the
/// device), so a million devices' plan costs a few bytes each, not a struct each.
package struct DevicePlan {
    /// What one device drew beside its two bits.
    struct Draws {
        /// After its start, when the activity's update token rotates; `nil` when it does not.
        var rotationAfterNs: Int64?
        /// Where in its life (0 to 1, from its start to its last call's due time) the user
        /// closes it; `nil` when they do not.
        var dismissalAt: Double?
        var reportDelayNs: Int64
    }

    package var neverReports: DeviceBits
    var reissues: DeviceBits
    /// Each activity's last call's due time, microseconds after the clock's 0 (-1: none; read
    /// through `lastDueMicroseconds(of:)`).
    private var lastDue: [Int64]
    private let seed: UInt64
    private let settings: DeviceSettings

    init(workload: ServiceWorkload, settings: DeviceSettings, startCalls: StartCalls) {
        let count = workload.activities
        seed = workload.scenario.seed ^ 0x4445_5649_4345_2121
        self.settings = settings
        var lastDue = [Int64](repeating: -1, count: count)
        for call in workload.calls {
            for activity in call.activities { lastDue[activity] = max(lastDue[activity], call.dueMicroseconds) }
        }
        self.lastDue = lastDue
        neverReports = DeviceBits(count: count)
        reissues = DeviceBits(count: count)
        for activity in 0..<count {
            var random = generator(of: activity)
            neverReports[activity] = random.chance(settings.neverReportShare)
            reissues[activity] =
                random.chance(settings.startTokenReissueShare) && startCalls.call(starting: activity) != nil
        }
    }

    /// When `activity`'s last call is due, microseconds after the clock's 0; `nil` when no call
    /// names it.
    func lastDueMicroseconds(of activity: Int) -> Int64? {
        lastDue[activity] < 0 ? nil : lastDue[activity]
    }

    /// The rest of `activity`'s draws: the same every time.
    func draws(of activity: Int) -> Draws {
        var random = generator(of: activity)
        _ = random.chance(settings.neverReportShare)
        _ = random.chance(settings.startTokenReissueShare)
        let rotation = settings.rotationAfterNs(random.nextUnit())
        let dismissal = random.chance(settings.dismissShare) ? random.nextUnit() : nil
        return Draws(
            rotationAfterNs: rotation,
            dismissalAt: dismissal,
            reportDelayNs: settings.reportDelay.nanoseconds(&random)
        )
    }

    private func generator(of activity: Int) -> SplitMix64 { SplitMix64(seed: seed, index: UInt64(activity)) }
}

/// A yes or no for each device, a bit each.
package struct DeviceBits {
    private var words: [UInt64]

    init(count: Int) { words = Array(repeating: 0, count: (count + 63) / 64) }

    package subscript(device: Int) -> Bool {
        get { words[device >> 6] & (1 << UInt64(device & 63)) != 0 }
        set {
            let bit: UInt64 = 1 << UInt64(device & 63)
            words[device >> 6] = newValue ? words[device >> 6] | bit : words[device >> 6] & ~bit
        }
    }
}

/// A device's timed step: its app starting the activity itself, reporting a token (its first,
/// or, rotated, its second), the token rotating, the user closing the activity, the
/// device re-issuing its push-to-start token. Sixteen bytes: every started device has one
/// waiting in the storm.
struct DeviceAction {
    enum Kind {
        case localStart
        case report(rotated: Bool)
        case rotate, dismiss, reissue
    }
    var dueNs: Int64
    private var device: UInt32
    var kind: Kind

    init(dueNs: Int64, activity: Int, kind: Kind) {
        self.dueNs = dueNs
        device = UInt32(activity)
        self.kind = kind
    }

    var activity: Int { Int(device) }
}

/// The actions not yet due, earliest first.
struct DeviceActionQueue {
    private var heap = Heap<DeviceAction>()

    var count: Int { heap.count }
    var first: DeviceAction? { heap.min }

    /// Adds `action`; whether it is now the earliest (a thread waiting for the earliest must
    /// wake sooner).
    @discardableResult
    mutating func push(_ action: DeviceAction) -> Bool {
        let sooner = heap.min.map { action.dueNs < $0.dueNs } ?? true
        heap.insert(action)
        return sooner
    }

    /// The earliest action if it is due by `nowNs`, taken.
    mutating func popDue(by nowNs: Int64) -> DeviceAction? {
        guard let first = heap.min, first.dueNs <= nowNs else { return nil }
        return heap.removeMin()
    }
}

extension DeviceAction: Comparable {
    /// Earlier first; actions due at the same moment in any order.
    static func < (left: DeviceAction, right: DeviceAction) -> Bool { left.dueNs < right.dueNs }

    static func == (left: DeviceAction, right: DeviceAction) -> Bool { left.dueNs == right.dueNs }
}

/// The fleet's books: each device's state, the start calls' arrivals, the drops by cause, and
/// the actions to come. Every moment is the profile clock's nanoseconds, which run from before
/// the mock's first answer: a start may come before the scenario's clock does.
package struct FleetState {
    package var plan: DevicePlan
    /// The scenario clock's 0 (the first call's intended time, less the lead); `nil` until the
    /// operator's calls begin.
    var clockZeroNs: Int64?
    package var devices: [DeviceState]
    var startSizes: [Int]
    package var extraStarts = 0
    /// Activities a start push started before the operator's call that was to start them was
    /// due: the service started them on its own (on subscribe, from a scheduler).
    package var startsBeforeTheirCall = 0
    /// When the last activity started, and the apps' own starts still to come.
    var lastStartNs: Int64?
    var localStartsWaiting = 0
    package var drops: [DeviceFleet.Drop: Int] = [:]
    /// Start pushes APNs accepted (each reached its device), and those it refused.
    package var startPushes = 0
    package var startPushesRefused = 0
    /// Pushes a device saw, and the devices' own steps: what the emulation's CPU is divided by.
    package var deviceEvents = 0
    var updatesShown = 0
    /// From each activity's start to its token report's answer, and to its first update, µs.
    package var startToReport = Histogram<UInt64>.latency(digits: .three)
    package var timeToFirstUpdate = Histogram<UInt64>.latency(digits: .three)
    var actions = DeviceActionQueue()
    /// First token reports scheduled and not yet answered: the registration storm still running.
    var reportsPending = 0

    init(activities: Int, starts: [Int], plan: DevicePlan) {
        self.plan = plan
        devices = Array(repeating: DeviceState(), count: activities)
        startSizes = starts
    }

    /// When `activity`'s token died: its end or dismissal, or for its first update token
    /// (`rotatedOut`) the end of its grace after a rotation; `nil` while it lives.
    func deadSinceNs(activity: Int, rotatedOut: Bool, grace: Duration) -> Int64? {
        let device = devices[activity]
        var dead = device.endedNs
        if rotatedOut, let rotatedNs = device.activity?.rotatedNs {
            let expired = rotatedNs + Int64(grace.inNanoseconds)
            dead = min(dead ?? expired, expired)
        }
        return dead
    }

    /// The intended moment of something due `microseconds` after the scenario clock's 0, once
    /// that clock has started.
    func dueNs(microseconds: Int64) -> Int64? { clockZeroNs.map { $0 + microseconds * 1000 } }

    mutating func drop(_ cause: DeviceFleet.Drop) { drops[cause, default: 0] += 1 }

    /// Each of `workload`'s start calls' fan-out: when each activity it started did, after its
    /// start push was owed (when the call was due, or the time it gave a service that starts on
    /// its own clock; one that came before is early, at 0). Read from the devices' own start
    /// times once, for the report: the fleet keeps no list a call. A start before its call was
    /// due is the service's own (not counted here). With the starts against their owed moments.
    package func startFanout(workload: ServiceWorkload) -> (fanouts: [ArrivalBook.CallFanout], starts: KindFigures) {
        var times = FanoutTimes()
        var starts = KindFigures()
        starts.owed = workload.starts.reduce(0) { $0 + $1.activities.count }
        for (call, start) in workload.starts.enumerated() {
            guard let callDueNs = dueNs(microseconds: start.dueMicroseconds),
                let owedNs = dueNs(microseconds: start.owedMicroseconds)
            else { continue }
            for activity in start.activities {
                guard let startedNs = devices[activity].activity?.startedNs, startedNs >= callDueNs else { continue }
                starts.record(lagNs: startedNs - owedNs)
                times.append(call: call, lagNs: max(0, startedNs - owedNs))
            }
        }
        return (times.fanouts(expected: workload.starts.map(\.activities.count)), starts)
    }
}
