import ArrivalMatching
import Arrivals
import DeviceEmulation
import Foundation
import LoadEngine
import RequestFiles
import Transport
import Wire
import Workload

extension APIFile {
    /// The registration of `activity` with `register`: its app syncing its tokens and group.
    public static func registration(
        of activity: Int,
        with register: Request,
        in workload: ServiceWorkload,
        intendedNanos: UInt64 = 0
    ) -> ServiceClient.Request {
        let group = workload.scenario.group(containing: activity)?.group ?? 0
        return register.request(tag: .registration(activity), intendedNanos: intendedNanos) { name in
            switch name {
            case .activity: .integer(Int64(activity))
            case .group: .integer(Int64(group))
            case .updateToken: .text(workload.updateToken(of: activity))
            case .pushToStartToken: .text(workload.pushToStartToken(of: activity))
            case .now: .time(Date().timeIntervalSince1970)
            default: .none
            }
        }
    }

    /// The request of call `index`, whose time is `startAtUnix` plus its due time. Only a file
    /// with an `event` request has calls to send (`ServiceWork` refuses the others).
    public func eventRequest(
        call index: Int,
        in workload: ServiceWorkload,
        startAtUnix: Double,
        intendedNanos: UInt64 = 0
    ) -> ServiceClient.Request {
        guard let event else { preconditionFailure("an event call, and no event request to send it with") }
        let call = workload.calls[index]
        let timestamp = startAtUnix + Double(call.dueMicroseconds) / 1e6
        let activity = call.activities.lowerBound
        return event.request(tag: .call(index), intendedNanos: intendedNanos) { name in
            switch name {
            case .activity: .integer(Int64(activity))
            case .group: .integer(Int64(call.group))
            case .updateToken: .text(workload.updateToken(of: activity))
            case .pushToStartToken: .text(workload.pushToStartToken(of: activity))
            case .event: .text(call.kind.rawValue)
            case .action: .text(actions[call.phase] ?? call.phase.rawValue)
            case .contentState: .json(Self.contentState(of: call, index: index))
            case .priority: .integer(Int64(call.priority))
            case .timestamp: .time(timestamp)
            case .staleDate:
                call.phase == .update ? .time(timestamp + Double(ScenarioPushSource.staleAfterSeconds)) : .none
            case .dismissalDate:
                call.phase == .end ? .time(timestamp + Double(ScenarioPushSource.dismissAfterSeconds)) : .none
            case .now: .time(Date().timeIntervalSince1970)
            case .activityStart, .activityEnd:
                workload.activityTimes.time(of: name, activity: activity, startAtUnix: startAtUnix)
            case .device, .user, .oldUpdateToken, .attributesType, .attributes, .startPush: .none
            }
        }
    }

    /// The call's `content-state`, its members named by its activity kind, with
    /// `pushbench_event`: the call's number, which matches the pushes of a service that passes
    /// the state through.
    static func contentState(of call: ServiceWorkload.Call, index: Int) -> [UInt8] {
        contentState(call.activityKind, call.state, tag: index)
    }

    /// A content state named by `kind`'s fields, with `pushbench_event` when `tag` is given.
    static func contentState(_ kind: ActivityKind, _ state: ContentState, tag: Int? = nil) -> [UInt8] {
        var members = kind.stateFields.enumerated().map { JSONMember($1, .integer(Int64(state[$0]))) }
        if let tag { members.append(JSONMember(EventTag.key, .integer(Int64(tag)))) }
        var json: [UInt8] = []
        JSONWriter.write(.object(members), to: &json)
        return json
    }
}

extension APIFile.Request {
    /// The request with its placeholders filled from `values`.
    func request(
        tag: RequestTag,
        intendedNanos: UInt64,
        _ values: (Placeholder) -> PlaceholderValue
    ) -> ServiceClient.Request {
        let rendered = rendered(values)
        return ServiceClient.Request(
            method: rendered.method,
            url: rendered.url,
            headers: rendered.headers,
            body: rendered.body,
            tag: tag.rawValue,
            intendedNanos: intendedNanos
        )
    }
}
