import Arrivals
import Basics
import Foundation
import Wire
import Workload

extension DeviceFleet {
    /// Books `push`, which reached the mock at its `receivedNs`, as the device its token belongs to
    /// sees it, and says whether the arrival book is to match it: not a start, which no call's
    /// schedule holds (the book counts it, and matches it to nothing). The book reads a rotated
    /// token as its activity's, as the fleet does. Only a push APNs accepted (200) reaches a
    /// device; of those it refused, the fleet books only its own 410s (to a token it let die),
    /// each as the drop its device would have made of it.
    public func arrived(_ push: Arrival) -> Bool {
        let receivedNs = push.receivedNs
        let cpuBegan = threadCPUNanos()
        defer {
            wakeIfSooner()
            addEmulationCPU(nanoseconds: threadCPUNanos() - cpuBegan, onMock: true)
        }
        guard let (activity, role) = owner(of: push.deviceToken) else {
            if push.status == 200 { state.withLock { $0.drop(.unknownToken) } }
            return true
        }
        switch role {
        case .pushToStart, .reissuedPushToStart:
            guard push.status == 200 else {
                state.withLock { $0.startPushesRefused += 1 }
                return false
            }
            let content = LiveActivityPushContent(json: push.body)
            let problem = startProblem(content, of: activity)
            let started = state.withLock { state -> Bool in
                state.startPushes += 1
                state.deviceEvents += 1
                if role == .pushToStart, state.devices[activity].startTokenStale {
                    state.drop(.stalePushToStartToken)
                    return false
                }
                if let problem {
                    state.drop(problem)
                    return false
                }
                start(activity, atNs: receivedNs, byCall: startCalls.call(starting: activity), in: &state)
                return state.devices[activity].activity != nil
            }
            if started { keep(startPush: push.body, of: activity) }
            return false
        case .update, .rotatedUpdate:
            state.withLock { state in
                let fleetsOwn410 =
                    push.status == 410
                    && unregisteredSinceNs(activity: activity, role: role, atNs: receivedNs, in: state) != nil
                if push.status == 200 || fleetsOwn410 {
                    updateArrived(
                        activity,
                        rotated: role == .rotatedUpdate,
                        ends: push.event == .end,
                        atNs: receivedNs,
                        in: &state
                    )
                }
            }
            return true
        }
    }

    /// Why the device of `activity` would start nothing from a start with `content`: checked
    /// against the team's app when the file names it, else against PushBench's app for the
    /// activity's kind.
    private func startProblem(_ content: LiveActivityPushContent?, of activity: Int) -> Drop? {
        guard let content, content.event == "start", content.hasAlert else { return .undecodableStart }
        if let app {
            guard content.attributesType == app.attributesType else { return .wrongAttributesType }
            guard let attributes = content.attributeNames, let state = content.contentStateNames,
                app.attributes.allSatisfy(attributes.contains), app.contentState.allSatisfy(state.contains)
            else { return .undecodableStart }
            return nil
        }
        // Only activities of start calls hold push-to-start tokens: the call names their kind.
        guard let call = startCalls.call(starting: activity) else {
            preconditionFailure("activity \(activity) holds a push-to-start token but no start call names it")
        }
        let kind = workload.starts[call].activityKind
        guard content.attributesType == kind.attributesType else { return .wrongAttributesType }
        guard let attributes = content.attributeIntegers, let state = content.contentStateIntegers,
            ServiceWorkload.attributeMembers.allSatisfy(attributes.contains),
            kind.stateFields.allSatisfy(state.contains)
        else { return .undecodableStart }
        return nil
    }

    /// Starts an activity on `activity`'s device at `atNs`, by start call `call` (`nil`: its app
    /// started it), unless the device is at its limit; a second start to a device whose
    /// activity runs starts another (`extraStarts`). Schedules what its device does next.
    func start(_ activity: Int, atNs: Int64, byCall call: Int?, in state: inout FleetState) {
        guard Int(state.devices[activity].liveActivities) < settings.activityLimit else {
            return state.drop(.overActivityLimit)
        }
        state.devices[activity].liveActivities += 1
        guard case .waiting = state.devices[activity].life else {
            state.extraStarts += 1
            return
        }
        state.devices[activity].life = .running(DeviceState.Activity(startedNs: atNs))
        state.lastStartNs = atNs
        // A start before its call was due was the service's own doing, not the call's
        // (`startFanout` books the others from each device's start).
        if let call, startLagNs(call: call, startedNs: atNs, in: state) == nil { state.startsBeforeTheirCall += 1 }
        let plan = state.plan
        let reportDelayNs = plan.draws(of: activity).reportDelayNs
        if !plan.neverReports[activity] {
            state.reportsPending += 1
            schedule(
                DeviceAction(dueNs: atNs + reportDelayNs, activity: activity, kind: .report(rotated: false)),
                in: &state
            )
        }
        if plan.reissues[activity] {
            schedule(DeviceAction(dueNs: atNs + reportDelayNs, activity: activity, kind: .reissue), in: &state)
        }
        if state.clockZeroNs != nil { scheduleLife(of: activity, startedNs: atNs, in: &state) }
    }

    /// Schedules when the user of `activity`, started at `startedNs`, closes it and when its
    /// token rotates: both fall within its life, up to its last call's due time on the scenario
    /// clock, which must have started.
    func scheduleLife(of activity: Int, startedNs: Int64, in state: inout FleetState) {
        let draws = state.plan.draws(of: activity)
        let lastDue = state.plan.lastDueMicroseconds(of: activity)
        let endNs = lastDue.map { max(startedNs, state.dueNs(microseconds: $0) ?? startedNs) } ?? startedNs
        if let share = draws.dismissalAt, endNs > startedNs {
            schedule(
                DeviceAction(
                    dueNs: startedNs + Int64(share * Double(endNs - startedNs)),
                    activity: activity,
                    kind: .dismiss
                ),
                in: &state
            )
        }
        if let after = draws.rotationAfterNs, startedNs + after < endNs {
            schedule(DeviceAction(dueNs: startedNs + after, activity: activity, kind: .rotate), in: &state)
        }
    }

    /// How long after its intended time start call `call` started an activity at `startedNs`;
    /// `nil` when it started before the call was due (or before the clock began).
    func startLagNs(call: Int, startedNs: Int64, in state: FleetState) -> Int64? {
        guard let dueNs = state.dueNs(microseconds: workload.starts[call].dueMicroseconds), startedNs >= dueNs else {
            return nil
        }
        return startedNs - dueNs
    }

    /// Since when the fleet has let the token of `role` of `activity` die for APNs, as of
    /// `atNs`: its death at least `unregisterDelay` ago. `nil` while APNs still takes it.
    func unregisteredSinceNs(activity: Int, role: TokenRole, atNs: Int64, in state: FleetState) -> Int64? {
        guard role == .update || role == .rotatedUpdate,
            let deadNs = state.deadSinceNs(
                activity: activity,
                rotatedOut: role == .update,
                grace: settings.rotationGrace
            ),
            atNs - deadNs >= Int64(settings.unregisterDelay.inNanoseconds)
        else { return nil }
        return deadNs
    }

    /// An update (or end) to `activity`'s first token, or its rotated one, arriving at `atNs`:
    /// shown, or dropped as a device drops it.
    private func updateArrived(_ activity: Int, rotated: Bool, ends: Bool, atNs: Int64, in state: inout FleetState) {
        state.deviceEvents += 1
        let device = state.devices[activity]
        guard let started = device.activity, !rotated || started.rotatedNs != nil else {
            return state.drop(.unknownToken)
        }
        if let endedNs = device.endedNs, endedNs <= atNs { return state.drop(.afterEnd) }
        if !rotated, let rotatedNs = started.rotatedNs, atNs > rotatedNs + Int64(settings.rotationGrace.inNanoseconds) {
            return state.drop(.rotatedOut)
        }
        // An end is shown as the activity's last state, not as an update of it: a service that
        // sends only starts and ends updated nothing.
        if ends { return state.devices[activity].end(atNs: atNs, dismissed: false) }
        state.updatesShown += 1
        if !started.updated {
            state.devices[activity].updateActivity { $0.updated = true }
            _ = state.timeToFirstUpdate.record(UInt64(max(0, atNs - started.startedNs) / 1000))
        }
    }
}
