/// Where one stream of a connection stands.
enum StreamProgress {
    /// Its request is arriving; `keepsBody` says whether its body is kept or only counted.
    case receiving(InboundPush, keepsBody: Bool)
    /// Its request has been answered, or the answer is scheduled; the stream closes once the
    /// answer is out (or never, for a withheld one, until the client resets it).
    case answered

    /// Counts a piece of the body, and keeps it if the request's body is kept.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        guard case .receiving(var push, let keepsBody) = self else { return }
        // Leaving `self` first leaves the request's body with one owner, so it grows in place.
        self = .answered
        push.bodyLength += bytes.count
        if keepsBody, push.body.count < ConnectionLimits.keptBodyBytes {
            push.body += bytes.prefix(ConnectionLimits.keptBodyBytes - push.body.count)
        }
        self = .receiving(push, keepsBody: keepsBody)
    }

    /// Whether the stream's request is still arriving.
    var isReceiving: Bool {
        if case .receiving = self { return true }
        return false
    }
}

extension PushResponder {
    /// Whether a request's body is kept (up to `ConnectionLimits.keptBodyBytes`) rather than only
    /// counted: Live Activity content is checked as a device would, recordings keep every body,
    /// channel requests carry their settings in it, and a broadcast (it names a channel) keeps its
    /// body whatever the spelling of its push type (Apple's own page writes `LiveActivity`).
    func keepsBody(of push: InboundPush, on connection: ConnectionState) -> Bool {
        recorder != nil || push.knownPushType == .liveactivity || push.channelID != nil
            || connection.listener == .channels
    }
}
