import Wire

/// A request as the mock received it, before any judgement: what `PushRequestValidator` reads.
///
/// The APNs headers are picked out once, as the request arrives, so judging, counting and
/// recording a push never search its header list again; other headers are ignored, as APNs
/// ignores them.
public struct InboundPush: Sendable {
    /// `:method`.
    public var method: String
    /// `:path`.
    public var path: String
    /// `authorization`, the provider token.
    public private(set) var authorization: String?
    /// `apns-id`.
    public private(set) var apnsID: String?
    /// `apns-push-type`, as sent.
    public private(set) var pushType: String?
    /// The push type `apns-push-type` names, if it names a known one.
    public private(set) var knownPushType: PushType?
    /// `apns-topic`.
    public private(set) var topic: String?
    /// `apns-priority`, as sent.
    public private(set) var priority: String?
    /// `apns-expiration`.
    public private(set) var expiration: String?
    /// `apns-collapse-id`.
    public private(set) var collapseID: String?
    /// `apns-channel-id`, a broadcast channel.
    public private(set) var channelID: String?
    /// `apns-request-id`, which broadcasts and channel requests carry instead of `apns-id`.
    public private(set) var requestID: String?
    /// Whether one of the headers above appeared more than once (APNs: `DuplicateHeaders`).
    public private(set) var hasDuplicateHeader = false
    /// Body length in bytes.
    public var bodyLength: Int
    /// The body, kept only when the mock records traffic or checks Live Activity content.
    public var body: [UInt8] = []
    /// The connection it came on (the client's port), for recordings and counters.
    public var connection = 0
    /// Streams open on that connection as it arrived, itself included, for recordings.
    public var streamsOpen = 0
    private var seen: UInt16 = 0

    /// Creates a request with no headers yet; `add(name:value:)` gives it each one.
    public init(method: String, path: String, bodyLength: Int = 0) {
        self.method = method
        self.path = path
        self.bodyLength = bodyLength
    }

    /// Creates a request from its regular headers in arrival order (names lowercase, as HTTP/2
    /// requires).
    public init(method: String, path: String, headers: [(name: String, value: String)], bodyLength: Int) {
        self.init(method: method, path: path, bodyLength: bodyLength)
        for (name, value) in headers { add(name: name, value: value) }
    }

    /// Whether `apns-priority`, when present, is one APNs accepts (1, 5 or 10).
    public var hasValidPriority: Bool {
        guard let priority else { return true }
        return priority == "10" || priority == "5" || priority == "1"
    }

    /// Whether a header field named `name` can be one `addField` keeps: a pseudo-header,
    /// `authorization` or an `apns-` header. The mock skips making strings of any other.
    public static func mayKeep(_ name: UnsafeRawBufferPointer) -> Bool {
        guard let first = name.first else { return false }
        if first == UInt8(ascii: ":") { return true }
        if name.count > 5 && name.prefix(5).elementsEqual("apns-".utf8) { return true }
        return name.elementsEqual("authorization".utf8)
    }

    /// Notes a header field as it arrives, pseudo-headers included: `:method` and `:path` are
    /// kept, the other pseudo-headers (`:scheme`, `:authority`) APNs does not read.
    public mutating func addField(name: String, value: String) {
        if name.utf8.first != UInt8(ascii: ":") {
            add(name: name, value: value)
        } else if name == ":method" {
            method = value
        } else if name == ":path" {
            path = value
        }
    }

    /// Notes a regular header. Names are told apart by length first, so a header APNs does not
    /// read costs three comparisons at most.
    public mutating func add(name: String, value: String) {
        switch name.utf8.count {
        case 7 where name == "apns-id": if isFirst(0) { apnsID = value }
        case 10 where name == "apns-topic": if isFirst(1) { topic = value }
        case 13 where name == "authorization": if isFirst(2) { authorization = value }
        case 13 where name == "apns-priority": if isFirst(3) { priority = value }
        case 14 where name == "apns-push-type":
            if isFirst(4) {
                pushType = value
                // The type nearly every push here carries, without the generic string switch.
                knownPushType = value == "liveactivity" ? .liveactivity : PushType(rawValue: value)
            }
        case 15 where name == "apns-expiration": if isFirst(5) { expiration = value }
        case 15 where name == "apns-channel-id": if isFirst(7) { channelID = value }
        case 15 where name == "apns-request-id": if isFirst(8) { requestID = value }
        case 16 where name == "apns-collapse-id": if isFirst(6) { collapseID = value }
        default: break
        }
    }

    /// Whether header number `bit` arrives for the first time; a repeat is noted.
    private mutating func isFirst(_ bit: UInt16) -> Bool {
        let mask: UInt16 = 1 << bit
        guard seen & mask == 0 else {
            hasDuplicateHeader = true
            return false
        }
        seen |= mask
        return true
    }
}
