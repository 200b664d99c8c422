extension PushResponder {
    /// APNs' answer to a request that has fully arrived on `connection`, with what it says about
    /// the connection noted: the adopted listener's tally, and a first valid token raising the
    /// stream limit. A connection answers through this, then `writing` and `wrote` around the
    /// answer's frames (or `count(_:writtenFrom:)` with no host when its stream is gone).
    func decide(_ request: InboundPush, on connection: ConnectionState, control: any ConnectionControl) -> Answer {
        let answer = answer(request, on: connection)
        // What a name counts are APNs' requests; a `GET /stats` is not one.
        if answer.kind != .other {
            connection.tally?.update {
                $0.requests += 1
                if answer.status == 200 { $0.accepted += 1 }
            }
        }
        if answer.tokenVerified { connection.tokenVerified(on: control) }
        return answer
    }

    /// Counts `answer` as written and changes the stream limit as it says, before its frames: a
    /// changed limit goes out first, so a client that stops reading after its last answer has
    /// still seen it.
    func writing(_ answer: Answer, on connection: ConnectionState, control: any ConnectionControl) {
        count(answer, writtenFrom: connection.client)
        connection.answered(accepted: answer.status == 200, on: control)
    }

    /// After an answer's frames: the fault plan's GOAWAY or reset after so many answers, counted.
    func wrote(_ answer: Answer, on connection: ConnectionState, control: any ConnectionControl) {
        switch connection.afterAnswer(on: control) {
        case .goAway: stats.update { $0.goAwaysSent += 1 }
        case .reset: stats.update { $0.connectionResets += 1 }
        case nil: break
        }
    }
}

extension PushResponder.Answer {
    /// The answer's header fields in the order they are written: `:status` first, then the
    /// identifiers, `retry-after` and `content-type`. `indexed` is false for the identifiers: new
    /// with every answer, they would only evict from HPACK's table entries that repeat.
    func forEachHeader(_ field: (_ name: String, _ value: String, _ indexed: Bool) -> Void) {
        field(":status", status == 200 ? "200" : String(status), true)
        if let apnsID { field("apns-id", apnsID, false) }
        if let requestID { field("apns-request-id", requestID, false) }
        if let channelID { field("apns-channel-id", channelID, false) }
        if let uniqueID { field("apns-unique-id", uniqueID, false) }
        if let retryAfterSeconds { field("retry-after", String(retryAfterSeconds), true) }
        if body != nil { field("content-type", "application/json", true) }
    }
}
