import Foundation
import Histogram
import Workload

/// What each device draws before the run, from the scenario's seed: whether it ever reports,
/// re-issues its push-to-start token, rotates or is dismissed, and its report delay.
struct DevicePlan {
    var neverReports: [Bool]
    var reissues: [Bool]
    /// After its start, when the activity's update token rotates; `nil` when it does not.
    var rotationAfterNs: [Int64?]
    /// Where in its life (0 to 1, from its start to its last call's due time) the user closes
    /// it; `nil` when they do not.
    var dismissalAt: [Double?]
    var reportDelayNs: [Int64]
    /// Each activity's last call's due time, microseconds after the clock's 0 (-1: none).
    var lastDueMicroseconds: [Int64]

    init(workload: ServiceWorkload, settings: DeviceSettings) {
        let count = workload.activities
        var lastDue = [Int64](repeating: -1, count: count)
        for call in workload.calls {
            for activity in call.activities { lastDue[activity] = max(lastDue[activity], call.dueMicroseconds) }
        }
        lastDueMicroseconds = lastDue
        neverReports = []
        reissues = []
        rotationAfterNs = []
        dismissalAt = []
        reportDelayNs = []
        let pushStarted = Set(workload.starts.flatMap { Array($0.activities) })
        for activity in 0..<count {
            var random = SplitMix64(seed: workload.scenario.seed ^ 0x4445_5649_4345_2121, index: UInt64(activity))
            neverReports.append(random.chance(settings.neverReportShare))
            reissues.append(random.chance(settings.startTokenReissueShare) && pushStarted.contains(activity))
            rotationAfterNs.append(settings.rotationAfterNs(random.nextUnit()))
            dismissalAt.append(random.chance(settings.dismissShare) ? random.nextUnit() : nil)
            reportDelayNs.append(settings.reportDelay.nanoseconds(&random))
        }
    }
}

/// A device's timed step: its app starting the activity itself, reporting a token, the token
/// rotating, the user closing the activity, the device re-issuing its push-to-start token.
struct DeviceAction {
    enum Kind {
        case localStart
        case report(generation: Int)
        case rotate, dismiss, reissue
    }
    var dueNs: Int64
    var activity: Int
    var kind: Kind
}

/// The actions not yet due, earliest first (a binary heap).
struct DeviceActionQueue {
    private var heap: [DeviceAction] = []

    var count: Int { heap.count }
    var first: DeviceAction? { heap.first }

    mutating func push(_ action: DeviceAction) {
        heap.append(action)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].dueNs < heap[parent].dueNs else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The earliest action if it is due by `nowNs`, taken.
    mutating func popDue(by nowNs: Int64) -> DeviceAction? {
        guard let first = heap.first, first.dueNs <= nowNs else { return nil }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            var least = parent
            if left < heap.count, heap[left].dueNs < heap[least].dueNs { least = left }
            if left + 1 < heap.count, heap[left + 1].dueNs < heap[least].dueNs { least = left + 1 }
            guard least != parent else { return first }
            heap.swapAt(parent, least)
            parent = least
        }
    }
}

/// The fleet's books: each device's state, the start calls' arrivals, the drops by cause, and
/// the actions to come. Every moment is the profile clock's nanoseconds, which run from before
/// the mock's first answer: a start may come before the scenario's clock does.
struct FleetState {
    var plan: DevicePlan
    /// The scenario clock's 0 (the first call's intended time, less the lead); `nil` until the
    /// operator's calls begin.
    var clockZeroNs: Int64?
    var devices: [DeviceState]
    /// Each start call's arrivals that started an activity, nanoseconds after its intended time.
    var startArrivals: [[Int64]]
    var startSizes: [Int]
    var extraStarts = 0
    /// Activities a start push started before the operator's call that was to start them was
    /// due: the service started them on its own (on subscribe, from a scheduler).
    var startsBeforeTheirCall = 0
    /// When the last activity started, and the apps' own starts still to come.
    var lastStartNs: Int64?
    var localStartsWaiting = 0
    var drops: [DeviceFleet.Drop: Int] = [:]
    /// Start pushes APNs accepted (each reached its device), and those it refused.
    var startPushes = 0
    var startPushesRefused = 0
    /// Pushes a device saw, and the devices' own steps: what the emulation's CPU is divided by.
    var deviceEvents = 0
    var updatesShown = 0
    /// From each activity's start to its token report's answer, and to its first update, µs.
    var startToReport = Histogram<UInt64>.latency(digits: .three)
    var timeToFirstUpdate = Histogram<UInt64>.latency(digits: .three)
    var actions = DeviceActionQueue()
    /// First token reports scheduled and not yet answered: the registration storm still running.
    var reportsPending = 0

    init(activities: Int, starts: [Int], plan: DevicePlan) {
        self.plan = plan
        devices = Array(repeating: DeviceState(), count: activities)
        startArrivals = starts.map { _ in [] }
        startSizes = starts
    }

    /// When `activity`'s token died: its end or dismissal, or for its first update token
    /// (`rotatedOut`) the end of its grace after a rotation; `nil` while it lives.
    func deadSinceNs(activity: Int, rotatedOut: Bool, grace: Duration) -> Int64? {
        var dead = devices[activity].endedNs
        if rotatedOut, let rotatedNs = devices[activity].activity?.rotatedNs {
            let expired = rotatedNs + Int64(grace.inNanoseconds)
            dead = min(dead ?? expired, expired)
        }
        return dead
    }

    /// The intended moment of something due `microseconds` after the scenario clock's 0, once
    /// that clock has started.
    func dueNs(microseconds: Int64) -> Int64? { clockZeroNs.map { $0 + microseconds * 1000 } }

    mutating func drop(_ cause: DeviceFleet.Drop) { drops[cause, default: 0] += 1 }
}
