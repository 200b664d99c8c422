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

    /// Creates a request with no headers yet; `set(_:to:)` or `add(name:value:)` gives it each one.
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

    /// The header fields a push is judged by, told apart by their name's bytes as they arrive,
    /// so that no String is made of a name, nor of the value of a field APNs does not read.
    public enum Field: UInt16, Sendable, CaseIterable {
        // Regular headers first: their raw value is their bit in the duplicate check.
        case apnsID, topic, authorization, priority, pushType, expiration, collapseID, channelID, requestID
        // Pseudo-headers, which HTTP/2 forbids repeating and nghttp2 refuses repeated.
        case method, path

        /// The field named `name` (lowercase, as HTTP/2 requires), or `nil` for one APNs does not
        /// read (`:scheme`, `:authority`, `user-agent`...). Names are told apart by length first,
        /// so an unread header costs a comparison or two.
        public init?(named name: UnsafeRawBufferPointer) {
            let candidate: Field
            switch name.count {
            case 5: candidate = .path
            case 7: candidate = name.first == UInt8(ascii: ":") ? .method : .apnsID
            case 10: candidate = .topic
            case 13: candidate = name[1] == UInt8(ascii: "u") ? .authorization : .priority
            case 14: candidate = .pushType
            case 15:
                switch name[5] {
                case UInt8(ascii: "e"): candidate = .expiration
                case UInt8(ascii: "c"): candidate = .channelID
                default: candidate = .requestID
                }
            case 16: candidate = .collapseID
            default: return nil
            }
            guard candidate.name.withUTF8Buffer({ name.elementsEqual($0) }) else { return nil }
            self = candidate
        }

        /// The field's name on the wire.
        public var name: StaticString {
            switch self {
            case .apnsID: "apns-id"
            case .topic: "apns-topic"
            case .authorization: "authorization"
            case .priority: "apns-priority"
            case .pushType: "apns-push-type"
            case .expiration: "apns-expiration"
            case .collapseID: "apns-collapse-id"
            case .channelID: "apns-channel-id"
            case .requestID: "apns-request-id"
            case .method: ":method"
            case .path: ":path"
            }
        }
    }

    /// Notes a header field as it arrives, pseudo-headers included: `:method` and `:path` are
    /// kept; a regular header repeated is noted (APNs: `DuplicateHeaders`) and its first value
    /// kept.
    public mutating func set(_ field: Field, to value: String) {
        switch field {
        case .method:
            method = value
            return
        case .path:
            path = value
            return
        default: guard isFirst(field.rawValue) else { return }
        }
        switch field {
        case .apnsID: apnsID = value
        case .topic: topic = value
        case .authorization: authorization = value
        case .priority: priority = value
        case .pushType:
            pushType = value
            // The type nearly every push here carries, without the generic string switch.
            knownPushType = value == "liveactivity" ? .liveactivity : PushType(rawValue: value)
        case .expiration: expiration = value
        case .collapseID: collapseID = value
        case .channelID: channelID = value
        case .requestID: requestID = value
        case .method, .path: break
        }
    }

    /// Notes a regular header given as text (a request read from a file); pseudo-headers and
    /// headers APNs does not read are ignored.
    public mutating func add(name: String, value: String) {
        var name = name
        guard let field = name.withUTF8({ Field(named: UnsafeRawBufferPointer($0)) }),
            field != .method && field != .path
        else { return }
        set(field, to: value)
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
