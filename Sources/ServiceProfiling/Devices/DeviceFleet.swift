import ArrivalMatching
import Foundation
import MockAPNs
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
/// (`takeDue`). One lock guards it all; a device event costs a dictionary lookup and a few
/// array writes.
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

    /// A token the fleet knows: whose it is, and which of the activity's tokens.
    enum TokenRole: Int32 {
        case pushToStart, reissuedPushToStart, update, rotatedUpdate
    }

    let workload: ServiceWorkload
    let settings: DeviceSettings
    /// The team's app, when the file names it; PushBench's own otherwise.
    let app: DeviceApp?
    let clock: ProfileClock
    /// Every token any device holds, by hex: `activity << 2 | role`.
    let tokens: [String: Int32]
    /// Each activity's start call (`workload.starts`), or -1 for a local start.
    let startCall: [Int32]
    let reissuedStartTokens: TokenSet
    let state: Mutex<FleetState>
    /// PushBench's own CPU playing the devices: the checks on the mock's threads and the
    /// reporter's thread, nanoseconds.
    private let emulationNs = Atomic<Int64>(0)

    /// The fleet for `workload`'s activities, behaving as `settings` says, running `app` (the
    /// team's, or PushBench's own when `nil`), on `clock`.
    public init(workload: ServiceWorkload, settings: DeviceSettings, app: DeviceApp? = nil, clock: ProfileClock) {
        self.workload = workload
        self.settings = settings
        self.app = app
        self.clock = clock
        let count = workload.activities
        let plan = DevicePlan(workload: workload, settings: settings)
        reissuedStartTokens = TokenSet(
            seed: workload.scenario.seed ^ 0x5245_4953_5355_4521,
            kind: .pushToStart,
            count: count
        )
        var startCall = [Int32](repeating: -1, count: count)
        for (index, start) in workload.starts.enumerated() {
            for activity in start.activities { startCall[activity] = Int32(index) }
        }
        var tokens: [String: Int32] = [:]
        tokens.reserveCapacity(3 * count)
        for activity in 0..<count {
            let code = Int32(activity) << 2
            if startCall[activity] >= 0 {
                tokens[workload.pushToStartToken(of: activity)] = code | TokenRole.pushToStart.rawValue
            }
            if plan.reissues[activity] {
                tokens[reissuedStartTokens.hex(at: activity)] = code | TokenRole.reissuedPushToStart.rawValue
            }
            tokens[workload.updateToken(of: activity)] = code | TokenRole.update.rawValue
            if plan.rotationAfterNs[activity] != nil {
                tokens[workload.rotatedUpdateToken(of: activity)] = code | TokenRole.rotatedUpdate.rawValue
            }
        }
        self.tokens = tokens
        self.startCall = startCall
        state = Mutex(FleetState(activities: count, starts: workload.starts.map(\.activities.count), plan: plan))
    }

    /// Starts the scenario's clock: the local starts are due from `startNs` (its 0), and an
    /// activity the service started before it now learns when its user closes it and when its
    /// token rotates.
    public func start(atNs startNs: Int64) {
        state.withLock { state in
            state.clockZeroNs = startNs
            state.localStartsWaiting = workload.localStarts.count
            for local in workload.localStarts {
                state.actions.push(
                    DeviceAction(
                        dueNs: startNs + local.dueMicroseconds * 1000,
                        activity: local.activity,
                        kind: .localStart
                    )
                )
            }
            for activity in state.devices.indices {
                if case .running(let started) = state.devices[activity].life {
                    scheduleLife(of: activity, startedNs: started.startedNs, in: &state)
                }
            }
        }
    }

    /// Since when (UNIX seconds) APNs answers `token` 410 `Unregistered`: its activity ended, or
    /// it was rotated out past its grace, `unregisterDelay` ago or more. `nil` while it lives.
    public func unregisteredSince(_ token: Substring) -> Int64? {
        guard let code = tokens[String(token)], let role = TokenRole(rawValue: code & 3),
            role == .update || role == .rotatedUpdate
        else { return nil }
        let nowNs = clock.nowNs
        let deadNs = state.withLock { unregisteredSinceNs(activity: Int(code >> 2), role: role, atNs: nowNs, in: $0) }
        return deadNs.map { Int64(clock.unix(ofNs: $0)) }
    }
}

extension ServiceWorkload {
    /// The update token `activity`'s rotation gives it.
    public func rotatedUpdateToken(of activity: Int) -> String { updateTokens.hex(at: 2 * activity + 1) }
}

extension DeviceFleet {
    /// Adds CPU spent playing the devices.
    func addEmulationCPU(nanoseconds: Int64) { emulationNs.add(nanoseconds, ordering: .relaxed) }

    /// PushBench's CPU playing the devices so far, seconds.
    public var emulationCPUSeconds: Double { Double(emulationNs.load(ordering: .relaxed)) / 1e9 }

    /// The push-to-start token of `activity`'s device: its first, or the one it re-issued.
    func pushToStartToken(of activity: Int, reissued: Bool) -> String {
        reissued ? reissuedStartTokens.hex(at: activity) : workload.pushToStartToken(of: activity)
    }

    /// The books now.
    var snapshot: FleetState { state.withLock { $0 } }

    /// What the watch reads each tick: the last start, the start pushes seen, the apps' own
    /// starts to come, first token reports not yet answered, and actions still waiting.
    var progress:
        (lastStartNs: Int64?, startPushes: Int, localStartsWaiting: Int, reportsPending: Int, actionsWaiting: Int)
    {
        state.withLock { ($0.lastStartNs, $0.startPushes, $0.localStartsWaiting, $0.reportsPending, $0.actions.count) }
    }

    /// Start pushes the operator's calls should cause: one to each device they start.
    var expectedStartPushes: Int { state.withLock { $0.startSizes.reduce(0, +) } }

    /// Which of its update tokens `activity` holds now: 0, or 1 once rotated.
    func generation(of activity: Int) -> Int {
        state.withLock { $0.devices[activity].activity?.rotatedNs == nil ? 0 : 1 }
    }
}
