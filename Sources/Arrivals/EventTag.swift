/// `pushbench_event`: each event's number, which PushBench puts first in the content state of
/// every payload it hands a sender (the events file's, and a service's calls), so that a push
/// that passes the payload through is matched to its event by identity, not by order. A push
/// repeated (a retry after a timeout that had in fact succeeded) then reads as a duplicate of
/// its event, not as the token's next one.
public enum EventTag {
    /// The member's name in the content state.
    public static let key = "pushbench_event"
    private static let member = Array("\"\(key)\":".utf8)
    private static let contentState = Array("\"content-state\":{".utf8)

    /// `payload` with `"pushbench_event":event` first in its content state; `payload` as it is
    /// when it has no content state.
    public static func tagged(_ payload: [UInt8], event: Int) -> [UInt8] {
        guard let open = firstIndex(of: contentState, in: payload) else { return payload }
        let at = open + contentState.count
        var inserted = member + Array(String(event).utf8)
        if at < payload.count, payload[at] != UInt8(ascii: "}") { inserted.append(UInt8(ascii: ",")) }
        var tagged = payload
        tagged.insert(contentsOf: inserted, at: at)
        return tagged
    }

    /// The event number in a push's `body`, if the sender passed it through.
    public static func read(_ body: [UInt8]) -> Int? {
        guard var position = firstIndex(of: member, in: body).map({ $0 + member.count }) else { return nil }
        while position < body.count, body[position] == UInt8(ascii: " ") { position += 1 }
        var value = 0
        var digits = 0
        while position < body.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(body[position]) {
            value = value * 10 + Int(body[position] - UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        return digits > 0 && digits < 10 ? value : nil
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var index = 0
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
