import Dispatch
import Wire

/// Turns a received request into APNs' answer, and counts the answers written; shared by every
/// stream.
struct PushResponder: Sendable {
    let validator: PushRequestValidator
    let stats: MockStats
    let clock: @Sendable () -> Int64
    let environment: MockAPNsConfiguration.Environment
    /// Records accepted pushes; when set, stream handlers keep request bodies for it.
    let recorder: PushRecorder?
    /// Injects latency, errors and stalls, when the configuration asks for any.
    let faults: FaultInjector?
    /// Whether a Live Activity push a device would drop is refused (`MockRejectedLiveActivity`)
    /// rather than accepted, as APNs accepts it, and counted.
    var strictLiveActivityContent = false

    /// An answer: status, headers after `:status`, a body for errors, and whether the request
    /// carried a valid provider token.
    struct Answer {
        var status: Int
        /// The rejection's reason; `nil` for an acceptance or an answer to something else.
        var reason: APNsReason? = nil
        /// Whether it answers a push (and counts as one), not a `/stats` request.
        var isPush = true
        /// The push's type, priority and connection, as the counters by each name them.
        var pushType = ""
        var priority = ""
        var connection = 0
        var headers: [(String, String)]
        var body: [UInt8]?
        var tokenVerified = false
        /// How long to hold the answer, nanoseconds (injected latency and stalls).
        var delayNanos: UInt64 = 0
    }

    /// The answer to `push`, which arrived on `connection`.
    func answer(_ push: InboundPush, on connection: ConnectionState) -> Answer {
        if push.method == "GET" && push.path == "/stats" {
            return Answer(
                status: 200,
                isPush: false,
                headers: [("content-type", "application/json")],
                body: stats.snapshot().json(providerTokenFullChecks: validator.verifier.fullChecks)
            )
        }
        let now = clock()
        let requestID = push.header("apns-id").flatMap { APNsID.isValid($0) ? $0 : nil }
        let apnsID = requestID ?? APNsID.random(using: &connection.apnsIDs)
        let adoptedBefore = connection.tokens.adoptedTokens
        let verdict = validator.verdict(on: push, now: now, tokens: &connection.tokens)
        if adoptedBefore > 0 && connection.tokens.adoptedTokens > adoptedBefore {
            stats.update { $0.providerTokenUpdates += 1 }
        }
        let labels = Self.labels(of: push)
        let rejection = verdict.rejection ?? contentRejection(push, pushType: labels.pushType)
        var headers = [("apns-id", apnsID)]
        if environment == .development { headers.append(("apns-unique-id", APNsID.random(using: &connection.apnsIDs))) }
        let fault = faults?.decide(nowNanos: DispatchTime.now().uptimeNanoseconds, valid: rejection == nil)
        let delayNanos = fault?.delayNanos ?? 0
        if let fault {
            stats.update {
                $0.injectedDelayMicros += Int(fault.delayNanos / 1000)
                if fault.stalled { $0.answersStalled += 1 }
                if let injected = fault.injected { $0.faultsInjected[injected.rawValue, default: 0] += 1 }
            }
        }
        guard let reason = rejection ?? fault?.injected else {
            recorder?.record(push, status: 200, reason: nil)
            return Answer(
                status: 200,
                pushType: labels.pushType,
                priority: labels.priority,
                connection: push.connection,
                headers: headers,
                body: nil,
                tokenVerified: true,
                delayNanos: delayNanos
            )
        }
        recorder?.record(push, status: reason.status, reason: reason)
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
            headers: headers + [("content-type", "application/json")],
            body: body,
            tokenVerified: verdict.tokenVerified,
            delayNanos: delayNanos
        )
    }

    /// Checks a Live Activity push's content as the device would, counting what it would drop;
    /// the rejection to give in strict mode.
    private func contentRejection(_ push: InboundPush, pushType: String) -> APNsReason? {
        guard pushType == PushType.liveactivity.rawValue, let problem = LiveActivityContent.problem(in: push.body)
        else {
            return nil
        }
        stats.update { $0.liveActivityWouldDrop[problem, default: 0] += 1 }
        return strictLiveActivityContent ? .mockRejectedLiveActivity : nil
    }

    /// Counts an answer to a push as written to its stream, or as never sent.
    func count(_ answer: Answer, written: Bool) {
        guard answer.isPush else { return }
        stats.update {
            guard written else {
                $0.answersUnsent += 1
                return
            }
            $0.pushes += 1
            $0.pushesByPushType[answer.pushType, default: 0] += 1
            $0.pushesByPriority[answer.priority, default: 0] += 1
            $0.pushesByConnection[answer.connection, default: 0] += 1
            if let reason = answer.reason {
                $0.rejectedByReason[reason.rawValue, default: 0] += 1
            } else {
                $0.accepted += 1
            }
        }
    }

    /// The push type and priority as the counters name them: a known value, `absent`, or
    /// `invalid` (so a client sending garbage cannot grow the counters without bound).
    private static func labels(of push: InboundPush) -> (pushType: String, priority: String) {
        let pushType = push.header("apns-push-type").map { PushType(rawValue: $0)?.rawValue ?? "invalid" }
        let priority = push.header("apns-priority").map { ["1", "5", "10"].contains($0) ? $0 : "invalid" }
        return (pushType ?? "absent", priority ?? "absent")
    }
}
