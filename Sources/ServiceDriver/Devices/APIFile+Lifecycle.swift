import DeviceEmulation
import Foundation
import LoadEngine
import RequestFiles
import Transport
import Wire
import Workload

extension APIFile {
    /// The operator's start call `index`, whose time is `startAtUnix` plus its due time: its
    /// attributes type, attributes and content state as the app's types declare them.
    public func startRequest(
        _ start: Request,
        call index: Int,
        in workload: ServiceWorkload,
        startAtUnix: Double,
        intendedNanos: UInt64
    ) -> ServiceClient.Request {
        let call = workload.starts[index]
        let timestamp = startAtUnix + Double(call.dueMicroseconds) / 1e6
        let activity = call.activities.lowerBound
        return start.request(tag: .start(index), intendedNanos: intendedNanos) { name in
            switch name {
            case .activity, .device, .user: .integer(Int64(activity))
            case .group: .integer(Int64(call.group))
            case .pushToStartToken: .text(workload.pushToStartToken(of: activity))
            case .event: .text("start")
            case .attributesType: .text(lifecycle?.app?.attributesType ?? call.activityKind.attributesType)
            case .attributes: .json(Self.attributes(group: call.group, app: lifecycle?.app))
            case .contentState: .json(Self.contentState(call.activityKind, call.state))
            case .timestamp: .time(timestamp)
            case .staleDate: .time(timestamp + Double(ScenarioPushSource.staleAfterSeconds))
            case .now: .time(Date().timeIntervalSince1970)
            case .activityStart, .activityEnd:
                workload.activityTimes.time(of: name, activity: activity, startAtUnix: startAtUnix)
            case .updateToken, .oldUpdateToken, .action, .priority, .dismissalDate, .startPush: .none
            }
        }
    }

    /// A device's request, tagged so that its answer finds it again (`RequestTag`); its
    /// activity's times count from `startAtUnix`, the clock's 0 (`nil` before the clock).
    public func deviceRequest(
        _ request: DeviceFleet.DeviceRequest,
        of fleet: DeviceFleet,
        startAtUnix: Double? = nil,
        intendedNanos: UInt64
    ) -> ServiceClient.Request? {
        guard let lifecycle, let template = lifecycle.template(for: request) else { return nil }
        let workload = fleet.workload
        let activity = request.activity
        let group = workload.scenario.group(containing: activity)?.group ?? 0
        var rotated = false
        var reissued = false
        switch request {
        case .tokenReport(_, let reported): rotated = reported
        case .startToken(_, let again): reissued = again
        case .close: rotated = fleet.hasRotated(activity)
        }
        return template.request(tag: .device(request), intendedNanos: intendedNanos) { name in
            switch name {
            case .activity, .device, .user: .integer(Int64(activity))
            case .group: .integer(Int64(group))
            case .updateToken:
                .text(rotated ? workload.rotatedUpdateToken(of: activity) : workload.updateToken(of: activity))
            case .oldUpdateToken: rotated ? .text(workload.updateToken(of: activity)) : .none
            case .pushToStartToken: .text(fleet.pushToStartToken(of: activity, reissued: reissued))
            case .now: .time(Date().timeIntervalSince1970)
            case .activityStart, .activityEnd:
                startAtUnix.map { workload.activityTimes.time(of: name, activity: activity, startAtUnix: $0) } ?? .none
            case .startPush: fleet.startPush(of: activity).map { .json($0) } ?? .none
            default: .none
            }
        }
    }

    /// The attributes a start carries: what the app's attributes type decodes, each member the
    /// group's number (PushBench's app has one, `groupID`).
    static func attributes(group: Int, app: DeviceApp? = nil) -> [UInt8] {
        var json: [UInt8] = []
        let names = app?.attributes ?? ["groupID"]
        JSONWriter.write(.object(names.map { JSONMember($0, .integer(Int64(group))) }), to: &json)
        return json
    }
}

extension APIFile.Lifecycle {
    /// The file's request for `request`, if it has one (a close needs `close`, a re-issued
    /// push-to-start token `start_token`).
    func template(for request: DeviceFleet.DeviceRequest) -> APIFile.Request? {
        switch request {
        case .tokenReport: tokenReport
        case .close: close
        case .startToken: startToken
        }
    }
}
