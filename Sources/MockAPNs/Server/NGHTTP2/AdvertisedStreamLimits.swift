/// The stream limits a connection advertises, and the one it enforces.
///
/// nghttp2 applies a `SETTINGS_MAX_CONCURRENT_STREAMS` it is asked to send from the moment it is
/// queued, and refuses a stream the client opened before it could have read it: a client that
/// sends two pushes at once on a new connection would lose the second to the one-stream start,
/// which HTTP/2 (applying SETTINGS once acknowledged) lets through. So
/// nghttp2 is always told `sessionLimit` (the limit after the token), each SETTINGS frame it
/// writes is given the advertised value on the way out, and the limit is enforced here:
/// - the first SETTINGS' limit once the client acknowledges it;
/// - a later change (the raise after the first valid token, the drop after a rejection that
///   `dropsAfterRejection` plays) at once: a stream past a dropped limit is refused with
///   REFUSED_STREAM, which a client sends again, as APNs' drop was seen to refuse them.
struct AdvertisedStreamLimits {
    /// What nghttp2 is told in every SETTINGS: it never refuses a stream below it.
    let sessionLimit: Int
    /// The values for SETTINGS frames queued in nghttp2 and not yet written out, in order.
    private var queued: [Int]
    /// The values of SETTINGS frames written out and not yet acknowledged, in order.
    private var unacknowledged: [Int] = []
    /// The limit streams are held to: none before the first SETTINGS is acknowledged, unless a
    /// later one was queued since.
    private(set) var enforced = Int.max
    /// Whether a SETTINGS after the first has been queued.
    private var changed = false
    /// Where in the output the next frame's header starts.
    private var nextFrame = 0

    /// Limits for a connection whose first SETTINGS advertises `initial`.
    init(initial: Int, sessionLimit: Int) {
        self.sessionLimit = sessionLimit
        queued = [initial]
    }

    /// Notes a SETTINGS frame just queued in nghttp2 (with `sessionLimit`) to advertise `limit`.
    mutating func queue(_ limit: Int) {
        queued.append(limit)
        changed = true
        enforced = limit
    }

    /// The client acknowledged the oldest SETTINGS frame not yet acknowledged.
    mutating func acknowledge() {
        guard !unacknowledged.isEmpty else { return }
        let limit = unacknowledged.removeFirst()
        if !changed { enforced = limit }
    }

    /// The output buffer was emptied: frames start again at its beginning.
    mutating func outputCleared() {
        nextFrame = 0
    }

    /// Walks the frames appended to `output` since the last call and writes the advertised value
    /// into each SETTINGS frame's `SETTINGS_MAX_CONCURRENT_STREAMS`.
    mutating func rewrite(_ output: inout [UInt8]) {
        while nextFrame + 9 <= output.count {
            let length = Int(output[nextFrame]) << 16 | Int(output[nextFrame + 1]) << 8 | Int(output[nextFrame + 2])
            let payload = nextFrame + 9
            guard payload + length <= output.count else { return }
            // A SETTINGS frame (type 4) that is not an ACK (flag 1).
            if output[nextFrame + 3] == 4, output[nextFrame + 4] & 1 == 0, !queued.isEmpty {
                let limit = queued.removeFirst()
                unacknowledged.append(limit)
                for entry in stride(from: payload, to: payload + length - 5, by: 6)
                where output[entry] == 0 && output[entry + 1] == 3 {
                    let value = UInt32(clamping: limit)
                    for byte in 0..<4 { output[entry + 2 + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
                }
            }
            nextFrame = payload + length
        }
    }
}
