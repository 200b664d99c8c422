import Wire

/// Turns a received request into APNs' answer and counts it; shared by every stream.
struct PushResponder: Sendable {
    let validator: PushRequestValidator
    let stats: MockStats
    let clock: @Sendable () -> Int64
    let environment: MockAPNsConfiguration.Environment
    /// Records accepted pushes; when set, stream handlers keep request bodies for it.
    let recorder: PushRecorder?

    /// An answer: status, headers after `:status`, a body for errors, and whether the request
    /// carried a valid provider token.
    struct Answer {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]?
        var tokenVerified = false
    }

    func answer(_ push: InboundPush, tokens: inout ProviderTokenHistory) -> Answer {
        if push.method == "GET" && push.path == "/stats" {
            return Answer(status: 200, headers: [("content-type", "application/json")], body: statsJSON())
        }
        let now = clock()
        let requestID = push.header("apns-id").flatMap { APNsID.isValid(Array($0.utf8)) ? $0 : nil }
        let apnsID = requestID ?? APNsID.random()
        let verdict = validator.verdict(on: push, now: now, tokens: &tokens)
        var headers = [("apns-id", apnsID)]
        if environment == .development { headers.append(("apns-unique-id", APNsID.random())) }
        guard let reason = verdict.rejection else {
            stats.update {
                $0.pushes += 1
                $0.accepted += 1
            }
            recorder?.record(push)
            return Answer(status: 200, headers: headers, body: nil, tokenVerified: true)
        }
        stats.update {
            $0.pushes += 1
            $0.rejectedByReason[reason.rawValue, default: 0] += 1
        }
        var members = [JSONMember("reason", .string(reason.rawValue))]
        if reason.status == 410 {
            members.append(JSONMember("timestamp", .integer((verdict.invalidSince ?? now) * 1000)))
        }
        var body: [UInt8] = []
        JSONWriter.write(.object(members), to: &body)
        return Answer(
            status: reason.status,
            headers: headers + [("content-type", "application/json")],
            body: body,
            tokenVerified: verdict.tokenVerified
        )
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
            JSONMember("provider_token_full_checks", .integer(Int64(validator.verifier.fullChecks))),
        ])
        var bytes: [UInt8] = []
        JSONWriter.write(value, to: &bytes)
        return bytes
    }
}
