import Workload

extension DeviceFleet {
    /// A request a device sends the service, through the API file's device side.
    public enum DeviceRequest: Sendable, Equatable {
        /// The update token of `activity`: its first, or (`rotated`) the one it rotated to.
        case tokenReport(activity: Int, rotated: Bool)
        /// The user closed `activity`.
        case close(activity: Int)
        /// The push-to-start token of `activity`'s device: before the clock, or re-issued.
        case startToken(activity: Int, reissued: Bool)

        /// The activity the request is about.
        public var activity: Int {
            switch self {
            case .tokenReport(let activity, _), .close(let activity), .startToken(let activity, _): activity
            }
        }
    }

    /// Takes every action due by `nowNs`, in order, and returns the requests they send, each
    /// with its intended moment.
    public func takeDue(nowNs: Int64) -> [(request: DeviceRequest, dueNs: Int64)] {
        state.withLock { state in
            var requests: [(DeviceRequest, Int64)] = []
            while let action = state.actions.popDue(by: nowNs) {
                state.deviceEvents += 1
                if let request = take(action, in: &state) { requests.append((request, action.dueNs)) }
            }
            return requests
        }
    }

    /// Whether an action is waiting, and when the next one is due.
    public var nextActionNs: Int64? { state.withLock { $0.actions.peekDueNs } }

    /// One action: its change to the device, and the request it sends, if any.
    private func take(_ action: DeviceAction, in state: inout FleetState) -> DeviceRequest? {
        let activity = action.activity
        let ended = state.devices[activity].endedNs != nil
        switch action.kind {
        case .localStart:
            state.localStartsWaiting -= 1
            start(activity, atNs: action.dueNs, byCall: nil, in: &state)
            return nil
        case .report(let rotated):
            guard !ended else {
                if !rotated { state.reportsPending -= 1 }
                return nil
            }
            return .tokenReport(activity: activity, rotated: rotated)
        case .rotate:
            guard !ended else { return nil }
            state.devices[activity].updateActivity { $0.rotatedNs = action.dueNs }
            let delay = state.plan.draws(of: activity).reportDelayNs
            schedule(
                DeviceAction(dueNs: action.dueNs + delay, activity: activity, kind: .report(rotated: true)),
                in: &state
            )
            return nil
        case .dismiss:
            guard !ended else { return nil }
            state.devices[activity].end(atNs: action.dueNs, dismissed: true)
            return .close(activity: activity)
        case .reissue:
            state.devices[activity].startTokenStale = true
            return .startToken(activity: activity, reissued: true)
        }
    }

    /// Books that `request` left PushBench for the service: a first token report no longer
    /// merely due is the service's to answer.
    public func handedOver(_ request: DeviceRequest) {
        guard case .tokenReport(let activity, rotated: false) = request else { return }
        state.withLock { state in
            state.devices[activity].updateActivity { if $0.report == .due { $0.report = .sent } }
        }
    }

    /// Books that `request` never left PushBench: it waited in PushBench's own queue until its
    /// deadline. A first token report stays due, so an activity never updated for it is charged
    /// to PushBench (`report_never_sent`), never to the service as a failed report.
    public func abandoned(_ request: DeviceRequest) {
        guard case .tokenReport(_, rotated: false) = request else { return }
        state.withLock { $0.reportsPending -= 1 }
    }

    /// Books the service's answer to `request`, at `atNs`: a first token report's success ends
    /// its device's part in the registration storm.
    public func answered(_ request: DeviceRequest, succeeded: Bool, atNs: Int64) {
        guard case .tokenReport(let activity, rotated: false) = request else { return }
        state.withLock { state in
            state.reportsPending -= 1
            state.devices[activity].updateActivity { $0.report = succeeded ? .answered : .failed }
            if succeeded, let started = state.devices[activity].activity {
                _ = state.startToReport.record(UInt64(max(0, atNs - started.startedNs) / 1000))
            }
        }
    }
}

extension DeviceActionQueue {
    /// When the earliest action is due, if any waits.
    var peekDueNs: Int64? { first?.dueNs }
}
