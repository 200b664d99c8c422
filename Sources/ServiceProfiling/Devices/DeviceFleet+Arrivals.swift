import Foundation
import MockAPNs
import Workload

extension DeviceFleet {
    /// Books `push`, which reached the mock at `receivedNs`, as the device its token belongs to
    /// sees it, and says what the arrival book is to match: the push with its update token
    /// replaced by its activity's first (a rotated token still answers its activity's calls), or
    /// `nil` for a start, which is the fleet's alone. A push APNs refused never reaches a
    /// device, except a 410 the fleet itself caused, which is counted with its cause.
    public func arrived(_ push: TrafficRecord, receivedNs: Int64, body: [UInt8]) -> TrafficRecord? {
        let cpuBegan = threadCPUNanos()
        defer { addEmulationCPU(nanoseconds: threadCPUNanos() - cpuBegan) }
        guard let code = tokens[push.deviceToken], let role = TokenRole(rawValue: code & 3) else {
            if push.status == 200 { state.withLock { $0.drop(.unknownToken) } }
            return push
        }
        let activity = Int(code >> 2)
        let reachesDevice = push.status == 200 || push.status == 410
        switch role {
        case .pushToStart, .reissuedPushToStart:
            guard reachesDevice else { return nil }
            let content = LiveActivityPushContent(json: body)
            let problem = startProblem(content, of: activity)
            state.withLock { state in
                state.startPushes += 1
                state.deviceEvents += 1
                if role == .pushToStart, state.startTokenStale[activity] { return state.drop(.stalePushToStartToken) }
                if let problem { return state.drop(problem) }
                start(activity, atNs: receivedNs, byCall: Int(startCall[activity]), in: &state)
            }
            return nil
        case .update, .rotatedUpdate:
            if reachesDevice {
                state.withLock { state in
                    updateArrived(
                        activity,
                        rotated: role == .rotatedUpdate,
                        ends: push.event == .end,
                        atNs: receivedNs,
                        in: &state
                    )
                }
            }
            var canonical = push
            canonical.deviceToken = workload.updateToken(of: activity)
            return canonical
        }
    }

    /// Why the device of `activity` would start nothing from a start with `content`.
    private func startProblem(_ content: LiveActivityPushContent?, of activity: Int) -> Drop? {
        // Only activities of start calls hold push-to-start tokens: the call names their kind.
        let kind = workload.starts[Int(startCall[activity])].activityKind
        guard let content, content.event == "start", content.hasAlert else { return .undecodableStart }
        guard content.attributesType == kind.attributesType else { return .wrongAttributesType }
        guard let attributes = content.attributeIntegers, let state = content.contentStateIntegers,
            ServiceWorkload.attributeMembers.allSatisfy(attributes.contains),
            kind.stateFields.allSatisfy(state.contains)
        else { return .undecodableStart }
        return nil
    }

    /// Starts an activity on `activity`'s device at `atNs`, by start call `call` (-1: its app
    /// started it), unless the device is at its limit; a second start to a device whose
    /// activity runs starts another (`extraStarts`). Schedules what its device does next.
    func start(_ activity: Int, atNs: Int64, byCall call: Int, in state: inout FleetState) {
        guard Int(state.liveOnDevice[activity]) < settings.activityLimit else { return state.drop(.overActivityLimit) }
        state.liveOnDevice[activity] += 1
        guard state.startedNs[activity] == FleetState.none else {
            state.extraStarts += 1
            return
        }
        state.startedNs[activity] = atNs
        state.lastStartNs = atNs
        if call >= 0 {
            state.startArrivals[call].append(atNs - state.startNs - workload.starts[call].dueMicroseconds * 1000)
        }
        let plan = state.plan
        if !plan.neverReports[activity] {
            state.reportsPending += 1
            state.actions.push(
                DeviceAction(
                    dueNs: atNs + plan.reportDelayNs[activity],
                    activity: activity,
                    kind: .report(generation: 0)
                )
            )
        }
        if plan.reissues[activity] {
            state.actions.push(
                DeviceAction(dueNs: atNs + plan.reportDelayNs[activity], activity: activity, kind: .reissue)
            )
        }
        let lastDue = plan.lastDueMicroseconds[activity]
        let endNs = lastDue < 0 ? atNs : state.startNs + lastDue * 1000
        if let share = plan.dismissalAt[activity], endNs > atNs {
            state.actions.push(
                DeviceAction(dueNs: atNs + Int64(share * Double(endNs - atNs)), activity: activity, kind: .dismiss)
            )
        }
        if let after = plan.rotationAfterNs[activity], atNs + after < endNs {
            state.actions.push(DeviceAction(dueNs: atNs + after, activity: activity, kind: .rotate))
        }
    }

    /// An update (or end) to `activity`'s first token, or its rotated one, arriving at `atNs`:
    /// shown, or dropped as a device drops it.
    private func updateArrived(_ activity: Int, rotated: Bool, ends: Bool, atNs: Int64, in state: inout FleetState) {
        state.deviceEvents += 1
        let started = state.startedNs[activity]
        if started == FleetState.none || (rotated && state.rotatedNs[activity] == FleetState.none) {
            return state.drop(.unknownToken)
        }
        if state.endedNs[activity] != FleetState.none, state.endedNs[activity] <= atNs { return state.drop(.afterEnd) }
        if !rotated, state.rotatedNs[activity] != FleetState.none,
            atNs > state.rotatedNs[activity] + Int64(settings.rotationGrace.inNanoseconds)
        {
            return state.drop(.rotatedOut)
        }
        state.updatesShown += 1
        if state.firstUpdateNs[activity] == FleetState.none {
            state.firstUpdateNs[activity] = atNs
            _ = state.timeToFirstUpdate.record(UInt64(max(0, atNs - started) / 1000))
        }
        if ends {
            state.endedNs[activity] = atNs
            state.liveOnDevice[activity] -= 1
        }
    }
}
