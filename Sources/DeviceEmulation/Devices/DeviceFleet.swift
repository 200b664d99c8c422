import ArrivalMatching
import Foundation
import RequestFiles
import Synchronization
import Workload

/// Every device of a lifecycle profile, played behind the mock: each checks the pushes that
/// reach it as iOS would, starts and ends its activity, and says when it reports its tokens.
///
/// Device `d` holds activity `d` (one activity a device, its user `d` too). Its push-to-start
/// token starts the activity when a start push is valid (`event: start`, the app's
/// `attributes-type`, attributes and content state that decode, an alert, under the device's
/// activity limit); the start mints the activity's update token (`ServiceWorkload.updateToken`),
/// which the app reports after a delay (`DeviceSettings.reportDelay`). A push the device cannot
/// use is dropped and counted by cause (`Drop`), whatever APNs answered: a service never sees
/// these, which is why PushBench, playing the device, must count them.
///
/// The mock's answering threads call `arrived`; the reporter's thread takes the timed actions
/// (`takeDue`). One lock guards it all; a device event costs reading its token (`TokenMint`: the
/// token says whose it is, so the fleet keeps no index of tokens) and a few writes to its
/// device's 32-byte state.
public final class DeviceFleet: Sendable {
    /// Why a device dropped a push.
    public enum Drop: String, Sendable, CaseIterable, Codable {
        /// To a token no started activity has.
        case unknownToken = "unknown_token"
        /// To an update token rotated out past its grace.
        case rotatedOut = "rotated_out"
        /// To an activity that had ended or that its user had dismissed.
        case afterEnd = "after_end_or_dismissal"
        /// A start to a push-to-start token the device had re-issued.
        case stalePushToStartToken = "stale_push_to_start_token"
        /// A start naming another `attributes-type` than the app's.
        case wrongAttributesType = "wrong_attributes_type"
        /// A start whose attributes or content state do not decode, or that does not alert, or a
        /// push to a push-to-start token that is not a start.
        case undecodableStart = "undecodable_start"
        /// A start beyond the device's concurrent-activity limit.
        case overActivityLimit = "over_activity_limit"
    }

    /// Which of its device's tokens a token is.
    enum TokenRole {
        case pushToStart, reissuedPushToStart, update, rotatedUpdate
    }

    package let workload: ServiceWorkload
    package let settings: DeviceSettings
    /// The team's app, when the file names it; PushBench's own otherwise.
    let app: DeviceApp?
    let clock: ProfileClock
    /// Each activity's start call (`workload.starts`), unless its app starts it.
    let startCalls: StartCalls
    let state: Mutex<FleetState>
    /// PushBench's own CPU playing the devices: the checks on the mock's threads, the devices'
    /// registrations of their push-to-start tokens, and the reporter's thread, nanoseconds.
    private let emulationNs = Atomic<Int64>(0)
    /// Of it, the part on the mock's threads (the checks of each push): the mock's own CPU is
    /// theirs less this, so that no second is counted twice.
    private let emulationOnMockNs = Atomic<Int64>(0)
    /// Each device's start push as it accepted it, kept only when a device's report names a
    /// member of it (`{{start.attributes.NAME}}`): what the app would read from its activity.
    private let startPushes: Mutex<[Int32: [UInt8]]>?
    /// Whether an action was scheduled ahead of every other since the devices' thread last
    /// heard, and how to wake that thread, which sleeps until its earliest action is due.
    private let soonerAction = Atomic(false)
    private let waker = Mutex<(@Sendable () -> Void)?>(nil)

    /// The fleet for `workload`'s activities, behaving as `settings` says, running `app` (the
    /// team's, or PushBench's own when `nil`), on `clock`.
    /// With `keepsStartPushes`, each device keeps the start push that started its activity.
    public init(
        workload: ServiceWorkload,
        settings: DeviceSettings,
        app: DeviceApp? = nil,
        clock: ProfileClock,
        keepsStartPushes: Bool = false
    ) {
        startPushes = keepsStartPushes ? Mutex([:]) : nil
        self.workload = workload
        self.settings = settings
        self.app = app
        self.clock = clock
        startCalls = StartCalls(workload)
        let plan = DevicePlan(workload: workload, settings: settings, startCalls: startCalls)
        let count = workload.activities
        state = Mutex(FleetState(activities: count, starts: workload.starts.map(\.activities.count), plan: plan))
    }

    /// The start push that started `activity`'s activity, when starts are kept and it has one.
    public func startPush(of activity: Int) -> [UInt8]? {
        startPushes?.withLock { $0[Int32(activity)] }
    }

    /// Keeps `body`, the start push that started `activity`, when starts are kept.
    func keep(startPush body: [UInt8], of activity: Int) {
        startPushes?.withLock { pushes in
            if pushes[Int32(activity)] == nil { pushes[Int32(activity)] = body }
        }
    }

    /// Starts the scenario's clock: the local starts are due from `startNs` (its 0), and an
    /// activity the service started before it now learns when its user closes it and when its
    /// token rotates.
    public func start(atNs startNs: Int64) {
        defer { wakeIfSooner() }
        state.withLock { state in
            state.clockZeroNs = startNs
            state.localStartsWaiting = workload.localStarts.count
            for local in workload.localStarts {
                schedule(
                    DeviceAction(
                        dueNs: startNs + local.dueMicroseconds * 1000,
                        activity: local.activity,
                        kind: .localStart
                    ),
                    in: &state
                )
            }
            for activity in state.devices.indices {
                if case .running(let started) = state.devices[activity].life {
                    scheduleLife(of: activity, startedNs: started.startedNs, in: &state)
                }
            }
        }
    }

    /// Wakes the devices' thread with `wake` whenever an action comes due before the one it
    /// sleeps towards: a start's token report, an app's own start.
    /// `nil` stops it, before the thread's client goes: no wake reaches it after.
    public func onSoonerAction(_ wake: (@Sendable () -> Void)?) {
        waker.withLock { $0 = wake }
    }

    /// Schedules `action`, noting when it is due before every other.
    func schedule(_ action: DeviceAction, in state: inout FleetState) {
        if state.actions.push(action) { soonerAction.store(true, ordering: .releasing) }
    }

    /// Wakes the devices' thread if an action was scheduled ahead of the others since it last
    /// looked: called once the fleet's lock is free.
    func wakeIfSooner() {
        guard soonerAction.exchange(false, ordering: .acquiringAndReleasing) else { return }
        // Called under the lock, so that no wake follows `onSoonerAction(nil)`.
        waker.withLock { $0?() }
    }

    /// Since when (UNIX seconds) APNs answers `token` 410 `Unregistered`: its activity ended, or
    /// it was rotated out past its grace, `unregisterDelay` ago or more. `nil` while it lives.
    /// The mock asks before it answers each push: its cost is the emulation's.
    public func unregisteredSince(_ token: Substring) -> Int64? {
        let cpuBegan = threadCPUNanos()
        defer { addEmulationCPU(nanoseconds: threadCPUNanos() - cpuBegan, onMock: true) }
        guard let (activity, role) = owner(of: token), role == .update || role == .rotatedUpdate else { return nil }
        let nowNs = clock.nowNs
        let deadNs = state.withLock { unregisteredSinceNs(activity: activity, role: role, atNs: nowNs, in: $0) }
        return deadNs.map { Int64(clock.unix(ofNs: $0)) }
    }

    /// Whose `token` is, read from the token itself: its activity and which of its tokens; `nil`
    /// for a token no device of the fleet holds.
    func owner(of token: some StringProtocol) -> (activity: Int, role: TokenRole)? {
        guard let reading = workload.tokens.read(token), reading.device < workload.activities else { return nil }
        let activity = reading.device
        switch (reading.kind, reading.generation) {
        case (.pushToStart, 0): return startCalls.call(starting: activity) != nil ? (activity, .pushToStart) : nil
        case (.pushToStart, 1):
            return state.withLock { $0.plan.reissues[activity] } ? (activity, .reissuedPushToStart) : nil
        case (.update, 0): return (activity, .update)
        case (.update, 1): return (activity, .rotatedUpdate)
        default: return nil
        }
    }
}

extension ServiceWorkload {
    /// The update token `activity`'s rotation gives it.
    public func rotatedUpdateToken(of activity: Int) -> String {
        tokens.hex(device: activity, kind: .update, generation: 1)
    }
}

extension DeviceFleet {
    /// Adds CPU spent playing the devices, on one of the mock's threads (`onMock`) or not.
    package func addEmulationCPU(nanoseconds: Int64, onMock: Bool = false) {
        emulationNs.add(nanoseconds, ordering: .relaxed)
        if onMock { emulationOnMockNs.add(nanoseconds, ordering: .relaxed) }
    }

    /// The part of `emulationCPUSeconds` spent on the mock's threads.
    public var emulationOnMockCPUSeconds: Double { Double(emulationOnMockNs.load(ordering: .relaxed)) / 1e9 }

    /// Books `count` devices' registrations of their push-to-start tokens, which took
    /// `cpuNanoseconds` of the registering thread: device events like any other.
    package func addRegistrations(_ count: Int, cpuNanoseconds: Int64) {
        addEmulationCPU(nanoseconds: cpuNanoseconds)
        state.withLock { $0.deviceEvents += count }
    }

    /// PushBench's CPU playing the devices so far, seconds.
    public var emulationCPUSeconds: Double { Double(emulationNs.load(ordering: .relaxed)) / 1e9 }

    /// The push-to-start token of `activity`'s device: its first, or the one it re-issued.
    package func pushToStartToken(of activity: Int, reissued: Bool) -> String {
        workload.tokens.hex(device: activity, kind: .pushToStart, generation: reissued ? 1 : 0)
    }

    /// The books now.
    package var snapshot: FleetState { state.withLock { $0 } }

    /// What the watch reads each tick: the last start, the start pushes seen, the apps' own
    /// starts to come, first token reports not yet answered, and actions still waiting.
    package var progress:
        (lastStartNs: Int64?, startPushes: Int, localStartsWaiting: Int, reportsPending: Int, actionsWaiting: Int)
    {
        state.withLock { ($0.lastStartNs, $0.startPushes, $0.localStartsWaiting, $0.reportsPending, $0.actions.count) }
    }

    /// Start pushes the operator's calls should cause: one to each device they start.
    package var expectedStartPushes: Int { state.withLock { $0.startSizes.reduce(0, +) } }

    /// Whether `activity`'s update token has rotated: it holds its second now.
    package func hasRotated(_ activity: Int) -> Bool {
        state.withLock { $0.devices[activity].activity?.rotatedNs != nil }
    }
}

/// The calling thread's CPU time, nanoseconds.
package func threadCPUNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}
