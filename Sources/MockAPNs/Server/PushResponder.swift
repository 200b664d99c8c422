import Dispatch
import MockFaults
import Wire

/// Turns a received request into APNs' answer, and counts the answers written; shared by every
/// connection. A class, so a new connection's handler takes one reference rather than a copy of
/// every field.
final class PushResponder: Sendable {
    let validator: PushRequestValidator
    let stats: MockStats
    let clock: @Sendable () -> Int64
    let environment: MockAPNsConfiguration.Environment
    /// Records accepted pushes; when set, connection handlers keep request bodies for it.
    let recorder: PushRecorder?
    /// Injects latency, errors and stalls, when the configuration asks for any.
    let faults: FaultInjector?
    /// Whether a Live Activity push a device would drop is refused (`MockRejectedLiveActivity`)
    /// rather than accepted, as APNs accepts it, and counted.
    let strictLiveActivityContent: Bool
    /// Broadcast channels, managed on the channel listener and used by broadcasts.
    let channels: ChannelStore

    init(
        validator: PushRequestValidator,
        stats: MockStats,
        clock: @escaping @Sendable () -> Int64,
        environment: MockAPNsConfiguration.Environment,
        recorder: PushRecorder?,
        faults: FaultInjector?,
        strictLiveActivityContent: Bool = false,
        channels: ChannelStore = ChannelStore()
    ) {
        self.channels = channels
        self.validator = validator
        self.stats = stats
        self.clock = clock
        self.environment = environment
        self.recorder = recorder
        self.faults = faults
        self.strictLiveActivityContent = strictLiveActivityContent
    }

    /// An answer: status, identifiers, a JSON body for errors, and whether the request carried
    /// a valid provider token.
    struct Answer {
        var status: Int
        /// The rejection's reason; `nil` for an acceptance or an answer to something else.
        var reason: APNsReason? = nil
        /// What it answers, which says where it is counted.
        var kind = Kind.push
        /// The push's type, priority and connection, as the counters by each name them.
        var pushType = PushTypeLabel.absent
        var priority = PriorityLabel.absent
        var connection = 0
        /// A channel request's operation (`create`, `read`, `delete`, `list`, `invalid`).
        var operation = ""
        /// Devices an accepted broadcast reaches.
        var deliveries = 0
        /// From an accepted broadcast until its last subscriber has it, microseconds.
        var lastDeliveryMicros = 0
        /// `apns-id`: the request's, or a new one; broadcasts and channel requests carry
        /// `apns-request-id` instead.
        var apnsID: String? = nil
        /// `apns-request-id`: the request's, or a new one.
        var requestID: String? = nil
        /// `apns-channel-id` of a channel just created.
        var channelID: String? = nil
        /// `apns-unique-id`, in the development environment only.
        var uniqueID: String? = nil
        /// A JSON body (an error's reason, a channel's settings), sent with
        /// `content-type: application/json`, or `nil`.
        var body: [UInt8]?
        var tokenVerified = false
        /// How long to hold the answer, nanoseconds (injected latency and stalls).
        var delayNanos: UInt64 = 0
        /// Whether the answer is never sent (a `hang` incident): the stream stays open.
        var withheld = false
        /// `Retry-After`, seconds, on an injected 429 or 503 when the fault plan says so.
        var retryAfterSeconds: Int? = nil

        /// What an answer answers.
        enum Kind {
            /// A device push (`pushes` in the stats).
            case push
            /// A broadcast to a channel.
            case broadcast
            /// A channel management request.
            case channelRequest
            /// Anything else (`GET /stats`), not counted.
            case other
        }
    }

    /// The answer to `push`, which arrived on `connection`.
    func answer(_ push: InboundPush, on connection: ConnectionState) -> Answer {
        if connection.listener == .channels { return channelAnswer(push, on: connection) }
        if push.path.hasPrefix(Self.broadcastPathPrefix) { return broadcastAnswer(push, on: connection) }
        if push.method == "GET" && push.path == "/stats" {
            return Answer(
                status: 200,
                kind: .other,
                body: stats.snapshot().json(providerTokenFullChecks: validator.verifier.fullChecks)
            )
        }
        let now = clock()
        let requestID = push.apnsID.flatMap { APNsID.isValid($0) ? $0 : nil }
        let apnsID = requestID ?? APNsID.random(using: &connection.apnsIDs)
        let adoptedBefore = connection.tokens.adoptedTokens
        let verdict = validator.verdict(on: push, now: now, tokens: &connection.tokens)
        if adoptedBefore > 0 && connection.tokens.adoptedTokens > adoptedBefore {
            stats.update { $0.providerTokenUpdates += 1 }
        }
        let labels = (pushType: PushTypeLabel(push), priority: PriorityLabel(push.priority))
        let content =
            push.knownPushType == .liveactivity && verdict.rejection == nil ? contentRejection(push.body) : nil
        let rejection = verdict.rejection ?? content?.reason
        let uniqueID = environment == .development ? APNsID.random(using: &connection.apnsIDs) : nil
        let fault = fault(for: push, valid: rejection == nil)
        let delayNanos = fault?.delayNanos ?? 0
        if let fault { count(fault) }
        guard let reason = rejection ?? fault?.injected else {
            if let irregularity = verdict.tokenIrregularity {
                stats.update { $0.acceptedIrregular[irregularity, default: 0] += 1 }
            }
            if let channel = content?.subscribesTo, let topic = push.topic {
                channels.subscribe(app: String(PushType.liveactivity.bundleID(ofTopic: topic)), id: channel)
            }
            recorder?.record(push, status: 200, reason: nil, issuedAt: verdict.issuedAt, walked: content?.aps)
            return Answer(
                status: 200,
                pushType: labels.pushType,
                priority: labels.priority,
                connection: push.connection,
                apnsID: apnsID,
                uniqueID: uniqueID,
                body: nil,
                tokenVerified: true,
                delayNanos: delayNanos,
                withheld: fault?.withheld ?? false
            )
        }
        return rejectionAnswer(
            push,
            reason: reason,
            verdict: verdict,
            fault: fault,
            now: now,
            ids: (apnsID, uniqueID),
            labels: labels
        )
    }

    /// Counts what the fault plan did to one answer.
    private func count(_ fault: FaultInjector.Decision) {
        stats.update {
            $0.injectedDelayMicros += Int(fault.delayNanos / 1000)
            if fault.stalled { $0.answersStalled += 1 }
            if fault.withheld { $0.answersWithheld += 1 }
            if let injected = fault.injected { $0.faultsInjected[injected.rawValue, default: 0] += 1 }
        }
    }

    /// APNs' answer refusing `push` for `reason`, recorded: its JSON body (with a 410's
    /// `timestamp`), and `Retry-After` on an injected 429 or 503.
    private func rejectionAnswer(
        _ push: InboundPush,
        reason: APNsReason,
        verdict: PushRequestValidator.Verdict,
        fault: FaultInjector.Decision?,
        now: Int64,
        ids: (apnsID: String, uniqueID: String?),
        labels: (pushType: PushTypeLabel, priority: PriorityLabel)
    ) -> Answer {
        let retryAfter =
            fault?.injected != nil && (reason.status == 429 || reason.status == 503)
            ? faults?.plan.retryAfterSeconds : nil
        recorder?.record(
            push,
            status: reason.status,
            reason: reason,
            issuedAt: verdict.issuedAt,
            retryAfterSeconds: retryAfter
        )
        var members = [JSONMember("reason", .string(reason.rawValue))]
        if reason.status == 410 {
            members.append(JSONMember("timestamp", .integer((verdict.invalidSince ?? now) * 1000)))
        }
        var body: [UInt8] = []
        JSONWriter.write(.object(members), to: &body)
        return Answer(
            status: reason.status,
            reason: reason,
            pushType: labels.pushType,
            priority: labels.priority,
            connection: push.connection,
            apnsID: ids.apnsID,
            uniqueID: ids.uniqueID,
            body: body,
            tokenVerified: verdict.tokenVerified,
            delayNanos: fault?.delayNanos ?? 0,
            withheld: fault?.withheld ?? false,
            retryAfterSeconds: retryAfter
        )
    }

    /// The fault plan's decision for `push`, arriving now, which the checks accepted (`valid`) or
    /// refused; `nil` when the mock plays no faults.
    private func fault(for push: InboundPush, valid: Bool) -> FaultInjector.Decision? {
        faults?.decide(
            pushType: push.knownPushType,
            path: push.path,
            nowNanos: DispatchTime.now().uptimeNanoseconds,
            valid: valid
        )
    }

    /// Checks a Live Activity payload (a device push's or a broadcast's) as the device would,
    /// counting what it would drop; the rejection to give in strict mode, and the `aps` members
    /// it walked.
    func contentRejection(_ body: [UInt8]) -> (reason: APNsReason?, subscribesTo: String?, aps: APSMembers?) {
        let assessed = LiveActivityContent.assess(body)
        guard let problem = assessed.problem else {
            if let irregularity = assessed.irregularity {
                stats.update { $0.acceptedIrregular[irregularity, default: 0] += 1 }
            }
            return (nil, assessed.subscribesTo, assessed.aps)
        }
        stats.update { $0.liveActivityWouldDrop[problem, default: 0] += 1 }
        return (strictLiveActivityContent ? .mockRejectedLiveActivity : nil, nil, assessed.aps)
    }

    /// Counts an answer as written to its stream by the host in `client`, or, when `client` is
    /// `nil`, as never written (an answer no host had).
    func count(_ answer: Answer, writtenFrom client: ClientAddresses.Slot?) {
        switch answer.kind {
        case .push: break
        case .broadcast, .channelRequest: return countBroadcastAnswer(answer, written: client != nil)
        case .other: return
        }
        guard let client else {
            return stats.update {
                $0.answersUnsent += 1
                $0.pushAnswersUnsent += 1
                if answer.reason == nil { $0.acceptedUnsent += 1 }
            }
        }
        stats.countWritten(answer, from: client)
    }
}
