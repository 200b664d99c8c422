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

    /// An answer: status, headers after `:status`, a body for errors, and whether the request
    /// carried a valid provider token.
    struct Answer {
        var status: Int
        /// The rejection's reason; `nil` for an acceptance or an answer to something else.
        var reason: APNsReason? = nil
        /// Whether it answers a push (and counts as one), not a `/stats` request.
        var isPush = true
        var headers: [(String, String)]
        var body: [UInt8]?
        var tokenVerified = false
        /// How long to hold the answer, nanoseconds (injected latency and stalls).
        var delayNanos: UInt64 = 0
    }

    func answer(_ push: InboundPush, tokens: inout ProviderTokenHistory) -> Answer {
        if push.method == "GET" && push.path == "/stats" {
            return Answer(
                status: 200,
                isPush: false,
                headers: [("content-type", "application/json")],
                body: statsJSON()
            )
        }
        let now = clock()
        let requestID = push.header("apns-id").flatMap { APNsID.isValid($0) ? $0 : nil }
        let apnsID = requestID ?? APNsID.random()
        let verdict = validator.verdict(on: push, now: now, tokens: &tokens)
        var headers = [("apns-id", apnsID)]
        if environment == .development { headers.append(("apns-unique-id", APNsID.random())) }
        let fault = faults?.decide(nowNanos: DispatchTime.now().uptimeNanoseconds, valid: verdict.rejection == nil)
        let delayNanos = fault?.delayNanos ?? 0
        if let fault {
            stats.update {
                $0.injectedDelayMicros += Int(fault.delayNanos / 1000)
                if fault.stalled { $0.answersStalled += 1 }
                if let injected = fault.injected { $0.faultsInjected[injected.rawValue, default: 0] += 1 }
            }
        }
        guard let reason = verdict.rejection ?? fault?.injected else {
            recorder?.record(push, status: 200, reason: nil)
            return Answer(status: 200, headers: headers, body: nil, tokenVerified: true, delayNanos: delayNanos)
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
            headers: headers + [("content-type", "application/json")],
            body: body,
            tokenVerified: verdict.tokenVerified,
            delayNanos: delayNanos
        )
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
            if let reason = answer.reason {
                $0.rejectedByReason[reason.rawValue, default: 0] += 1
            } else {
                $0.accepted += 1
            }
        }
    }

    private func statsJSON() -> [UInt8] {
        let snapshot = stats.snapshot()
        let reasons = snapshot.rejectedByReason.sorted { $0.key < $1.key }.map {
            JSONMember($0.key, .integer(Int64($0.value)))
        }
        let value = JSONValue.object([
            JSONMember("connections_accepted", .integer(Int64(snapshot.connectionsAccepted))),
            JSONMember("connections_refused_without_h2", .integer(Int64(snapshot.connectionsRefusedWithoutH2))),
            JSONMember("connections_open", .integer(Int64(snapshot.connectionsOpen))),
            JSONMember("pushes", .integer(Int64(snapshot.pushes))),
            JSONMember("accepted", .integer(Int64(snapshot.accepted))),
            JSONMember("rejected_by_reason", .object(reasons)),
            JSONMember("streams_reset_by_client", .integer(Int64(snapshot.streamsResetByClient))),
            JSONMember(
                "faults_injected",
                .object(
                    snapshot.faultsInjected.sorted { $0.key < $1.key }.map {
                        JSONMember($0.key, .integer(Int64($0.value)))
                    }
                )
            ),
            JSONMember("answers_stalled", .integer(Int64(snapshot.answersStalled))),
            JSONMember("goaways_sent", .integer(Int64(snapshot.goAwaysSent))),
            JSONMember("connection_resets", .integer(Int64(snapshot.connectionResets))),
            JSONMember("answers_unsent", .integer(Int64(snapshot.answersUnsent))),
            JSONMember("injected_delay_us_total", .integer(Int64(snapshot.injectedDelayMicros))),
            JSONMember("provider_token_full_checks", .integer(Int64(validator.verifier.fullChecks))),
        ])
        var bytes: [UInt8] = []
        JSONWriter.write(value, to: &bytes)
        return bytes
    }
}
