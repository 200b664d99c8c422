import Foundation
import Wire

extension PushResponder {
    private static let channelPathPrefix = "/1/apps/"

    /// APNs' answer to a channel management request on the channel listener
    /// (`docs/apns.md` §3.5.1):
    ///
    /// | operation | request | success |
    /// |---|---|---|
    /// | create | `POST /1/apps/<bundle>/channels` with `{"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}` | 201, `apns-channel-id` |
    /// | read | `GET /1/apps/<bundle>/channels` with `apns-channel-id` | 200, the settings as JSON |
    /// | delete | `DELETE /1/apps/<bundle>/channels` with `apns-channel-id` | 204 |
    /// | list | `GET /1/apps/<bundle>/all-channels` | 200, `{"channels": [...]}` |
    ///
    /// Checks, the first failure answering: the path (404 `BadPath`), the method (405), then
    /// what broadcasts also check (provider token, `TopicMismatch`, `apns-request-id`,
    /// `TopicDisallowed`), then the operation's own: for create, a JSON object (400
    /// `BadRequestPayload`) with no other attribute (400 `BadRequestParams`), a storage policy of
    /// 0 or 1 (400 `MissingChannelQueueSize`, undocumented but met by libraries), `push-type`
    /// `LiveActivity` (400 `MissingPushType`, `InvalidPushType`) and room under the app's limit
    /// (400 `CannotCreateChannelConfig`); for read and delete, `apns-channel-id` (400
    /// `MissingChannelId`, `BadChannelId`) naming a channel: 400 `ChannelNotRegistered` for a
    /// read, and 404 `BadPath` for a delete, as deleting a missing channel was seen answering.
    func channelAnswer(_ push: InboundPush, on connection: ConnectionState) -> Answer {
        var answer = Answer(status: 200, kind: .channelRequest, connection: connection.port, operation: "invalid")
        answer.requestID =
            push.requestID.flatMap { APNsID.isValid($0) ? $0 : nil }
            ?? APNsID.random(using: &connection.apnsIDs)
        if let rejection = channelRejection(push, on: connection, answer: &answer) {
            return Self.refusing(answer, with: rejection)
        }
        return answer
    }

    /// Runs the request's operation; the reason it fails, if it does.
    private func channelRejection(
        _ push: InboundPush,
        on connection: ConnectionState,
        answer: inout Answer
    ) -> APNsReason? {
        guard push.path.hasPrefix(Self.channelPathPrefix) else { return .badPath }
        let rest = push.path.dropFirst(Self.channelPathPrefix.count).split(
            separator: "/",
            omittingEmptySubsequences: false
        )
        guard rest.count == 2, !rest[0].isEmpty, rest[1] == "channels" || rest[1] == "all-channels" else {
            return .badPath
        }
        let app = rest[0]
        switch (rest[1], push.method) {
        case ("channels", "POST"): answer.operation = "create"
        case ("channels", "GET"): answer.operation = "read"
        case ("channels", "DELETE"): answer.operation = "delete"
        case ("all-channels", "GET"): answer.operation = "list"
        default: return .methodNotAllowed
        }
        if let reason = sharedRejection(push, app: app, on: connection, answer: &answer) { return reason }
        switch answer.operation {
        case "create": return create(push, app: String(app), answer: &answer)
        case "list":
            let ids = channels.list(app: String(app)).map { JSONValue.string($0) }
            answer.body = Self.json([JSONMember("channels", .array(ids))])
            return nil
        default:
            guard let id = push.channelID, !id.isEmpty else { return .missingChannelId }
            guard ChannelStore.isWellFormed(id) else { return .badChannelId }
            if answer.operation == "delete" {
                guard channels.delete(app: String(app), id: id) else { return .badPath }
                answer.status = 204
                return nil
            }
            guard let channel = channels.channel(app: String(app), id: id) else { return .channelNotRegistered }
            answer.body = Self.json(Self.settings(storagePolicy: channel.storagePolicy))
            return nil
        }
    }

    /// Creates a channel from the request's settings.
    private func create(_ push: InboundPush, app: String, answer: inout Answer) -> APNsReason? {
        guard let settings = (try? JSONSerialization.jsonObject(with: Data(push.body))) as? [String: Any] else {
            return .badRequestPayload
        }
        guard settings.keys.allSatisfy({ $0 == "message-storage-policy" || $0 == "push-type" }) else {
            return .badRequestParams
        }
        guard let policy = settings["message-storage-policy"] as? Int, policy == 0 || policy == 1 else {
            return .missingChannelQueueSize
        }
        guard let pushType = settings["push-type"] as? String else { return .missingPushType }
        guard pushType.lowercased() == "liveactivity" else { return .invalidPushType }
        guard let id = channels.create(app: app, storagePolicy: policy) else { return .cannotCreateChannelConfig }
        answer.status = 201
        answer.channelID = id
        return nil
    }

    private static func settings(storagePolicy: Int) -> [JSONMember] {
        [
            JSONMember("message-storage-policy", .integer(Int64(storagePolicy))),
            JSONMember("push-type", .string("LiveActivity")),
        ]
    }

    private static func json(_ members: [JSONMember]) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.write(.object(members), to: &bytes)
        return bytes
    }
}
