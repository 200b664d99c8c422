import Foundation
import Wire

extension PushResponder {
    static let broadcastPathPrefix = "/4/broadcasts/apps/"

    /// APNs' answer to a broadcast (`POST /4/broadcasts/apps/<bundle>`, iOS 18): one Live
    /// Activity update to every subscriber of a channel (`docs/apns.md` §3.5.2).
    ///
    /// Checks, the first failure answering: the method (405), the path (404 `BadPath`), the
    /// provider token and its key (as for device pushes), a topic-specific key listing the app
    /// (403 `TopicMismatch`), `apns-request-id` (400 `BadMessageId`), the app without a
    /// push-type suffix (400 `TopicDisallowed`), then APNSwift's test server's order from
    /// Apple's docs: `MissingChannelId` (and `BadChannelId`), `MissingPushType`,
    /// `InvalidPushType`, `BadExpirationDate`, `BadPriority`, `ChannelNotRegistered`,
    /// `apns-expiration: 0` on a No-Message-Stored channel (`BadExpirationDate`), `PayloadEmpty`,
    /// 413 above 5120 bytes, a body that is not a JSON object (400 `BadRequestPayload`), and last
    /// the channel's rate, when one is set (429 `TooManyRequests`).
    /// Answers carry `apns-request-id`, and a success `apns-unique-id` in both environments.
    func broadcastAnswer(_ push: InboundPush, on connection: ConnectionState) -> Answer {
        let app = push.path.dropFirst(Self.broadcastPathPrefix.count)
        var answer = Answer(status: 200, kind: .broadcast, connection: connection.port)
        answer.requestID =
            push.requestID.flatMap { APNsID.isValid($0) ? $0 : nil }
            ?? APNsID.random(using: &connection.apnsIDs)
        let rejection = broadcastRejection(push, app: app, on: connection, answer: &answer)
        guard let rejection else {
            answer.uniqueID = APNsID.random(using: &connection.apnsIDs)
            return answer
        }
        return Self.refusing(answer, with: rejection)
    }

    /// The first broadcast check that fails; on success, `answer` learns the fan-out.
    private func broadcastRejection(
        _ push: InboundPush,
        app: Substring,
        on connection: ConnectionState,
        answer: inout Answer
    ) -> APNsReason? {
        guard push.method == "POST" else { return .methodNotAllowed }
        guard !app.isEmpty, !app.contains("/") else { return .badPath }
        if let reason = sharedRejection(push, app: app, on: connection, answer: &answer) { return reason }
        guard let channelID = push.channelID, !channelID.isEmpty else { return .missingChannelId }
        guard ChannelStore.isWellFormed(channelID) else { return .badChannelId }
        guard let pushType = push.pushType, !pushType.isEmpty else { return .missingPushType }
        guard pushType.lowercased() == PushType.liveactivity.rawValue else { return .invalidPushType }
        guard let expiration = push.expiration.flatMap({ Int64($0) }), expiration >= 0 else {
            return .badExpirationDate
        }
        guard push.priority != nil, push.hasValidPriority else { return .badPriority }
        guard let channel = channels.channel(app: String(app), id: channelID) else { return .channelNotRegistered }
        if channel.storagePolicy == 0 && expiration != 0 { return .badExpirationDate }
        guard push.bodyLength > 0 else { return .payloadEmpty }
        guard push.bodyLength <= PayloadEncoder.largeLimit else { return .payloadTooLarge }
        guard (try? JSONSerialization.jsonObject(with: Data(push.body))) is [String: Any] else {
            return .badRequestPayload
        }
        if let reason = contentRejection(push.body).reason { return reason }
        guard
            let deliveries = channels.admitBroadcast(
                app: String(app),
                id: channelID,
                nowNanos: DispatchTime.now().uptimeNanoseconds
            )
        else { return .tooManyRequests }
        answer.deliveries = deliveries
        answer.lastDeliveryMicros = Int(channels.lastDeliveryMicros(subscribers: deliveries).rounded())
        return nil
    }

    /// The checks broadcasts and channel requests share after their path: the provider token
    /// and its key, a topic-specific key listing the app, `apns-request-id`, and an app named
    /// without a push-type suffix.
    func sharedRejection(
        _ push: InboundPush,
        app: Substring,
        on connection: ConnectionState,
        answer: inout Answer
    ) -> APNsReason? {
        let credentials = validator.credentials(of: push, now: clock(), tokens: &connection.tokens)
        answer.tokenVerified = credentials.identity != nil
        if let reason = credentials.rejection { return reason }
        if let keyID = credentials.identity?.keyID, let key = validator.verifier.key(keyID), !key.covers(bundleID: app)
        {
            return .topicMismatch
        }
        if let id = push.requestID, !APNsID.isValid(id) { return .badMessageId }
        if PushType.allCases.contains(where: { !$0.topicSuffix.isEmpty && app.hasSuffix($0.topicSuffix) }) {
            return .topicDisallowed
        }
        return nil
    }

    /// `answer` turned into a refusal: the reason's status and its JSON body.
    static func refusing(_ answer: Answer, with reason: APNsReason) -> Answer {
        var refusal = answer
        refusal.status = reason.status
        refusal.reason = reason
        refusal.deliveries = 0
        var body: [UInt8] = []
        JSONWriter.write(.object([JSONMember("reason", .string(reason.rawValue))]), to: &body)
        refusal.body = body
        return refusal
    }

    /// Counts an answer to a broadcast or channel request as written, or as never sent.
    func countBroadcastAnswer(_ answer: Answer, written: Bool) {
        stats.update {
            guard written else {
                $0.answersUnsent += 1
                return
            }
            if answer.kind == .broadcast {
                $0.broadcasts += 1
                if answer.reason == nil {
                    $0.broadcastsAccepted += 1
                    $0.broadcastDeliveries += answer.deliveries
                    $0.broadcastLastDeliveryMicros += answer.lastDeliveryMicros
                    $0.broadcastLastDeliveryMicrosMax = max(
                        $0.broadcastLastDeliveryMicrosMax,
                        answer.lastDeliveryMicros
                    )
                }
            } else {
                $0.channelRequests[answer.operation, default: 0] += 1
                if answer.reason == nil && answer.operation == "create" { $0.channelsCreated += 1 }
                if answer.reason == nil && answer.operation == "delete" { $0.channelsDeleted += 1 }
            }
            if let reason = answer.reason {
                if answer.kind == .broadcast {
                    $0.broadcastRejectedByReason[reason.rawValue, default: 0] += 1
                } else {
                    $0.channelRequestsRejectedByReason[reason.rawValue, default: 0] += 1
                }
            }
        }
    }
}
