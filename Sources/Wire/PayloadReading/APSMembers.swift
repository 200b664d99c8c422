/// The member names of a payload's `aps` object and its `event`, read by walking the JSON
/// without building it: the mock looks at every Live Activity push, and a full parse would cost
/// more than the rest of its checks together.
package struct APSMembers {
    /// The `aps` members a device reads, as a set of bits.
    package struct Names: OptionSet {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        static let event = Names(rawValue: 1 << 0)
        static let timestamp = Names(rawValue: 1 << 1)
        static let contentState = Names(rawValue: 1 << 2)
        static let attributesType = Names(rawValue: 1 << 3)
        static let attributes = Names(rawValue: 1 << 4)
        static let alert = Names(rawValue: 1 << 5)
        static let dismissalDate = Names(rawValue: 1 << 6)

        /// Each name's spelling in the payload.
        static let spellings: [(String, Names)] = [
            ("event", .event), ("timestamp", .timestamp), ("content-state", .contentState),
            ("attributes-type", .attributesType), ("attributes", .attributes), ("alert", .alert),
            ("dismissal-date", .dismissalDate),
        ]
    }

    /// Which of those `aps` has (other members are stepped over).
    package private(set) var names: Names = []
    /// The value of `aps.event` when it is a string.
    package private(set) var event: String?
    /// How many digits `aps.timestamp`'s whole part has (0 when it is not a number): 13 are
    /// milliseconds where APNs wants seconds.
    package private(set) var timestampDigits = 0
    /// The value of `aps.input-push-channel` when it is a string: the broadcast channel a start
    /// subscribes to.
    package private(set) var inputPushChannel: String?
    /// The whole parts of `aps.timestamp`, `aps.stale-date` and `aps.dismissal-date` when they
    /// are numbers: what a recording keeps of a push.
    package private(set) var timestamp: Int64?
    package private(set) var staleDate: Int64?
    package private(set) var dismissalDate: Int64?
    /// The value of `aps.attributes-type` when it is a string, and the names of the members of
    /// `aps.attributes` and `aps.content-state` whose values are integers, when `readsObjects`:
    /// what a device decodes a start with (`LiveActivityPushContent`).
    package private(set) var attributesType: String?
    package private(set) var attributeIntegers: [String]?
    package private(set) var contentStateIntegers: [String]?
    /// The names of every member of `aps.attributes` and `aps.content-state` that is not null,
    /// when `readsObjects`: what a team's own app needs present.
    package private(set) var attributeNames: [String]?
    package private(set) var contentStateNames: [String]?

    /// `nil` unless `json` is one JSON object whose `aps` is an object. With `readsObjects`, it
    /// also reads what a device decodes: the attributes type and the integer members of the
    /// attributes and the content state.
    package init?(json: [UInt8], readsObjects: Bool = false) {
        var cursor = JSONCursor(json)
        var found = false
        let wellFormed = cursor.members { name, cursor in
            guard name == "aps", cursor.peek == UInt8(ascii: "{") else { return cursor.skipValue() }
            found = true
            return cursor.members { name, cursor in
                if let known = Names.spellings.first(where: { $0.0 == name }) { self.names.insert(known.1) }
                switch name {
                case "timestamp":
                    self.timestampDigits = cursor.leadingDigits
                    self.timestamp = cursor.leadingInteger
                case "stale-date": self.staleDate = cursor.leadingInteger
                case "dismissal-date": self.dismissalDate = cursor.leadingInteger

                default: break
                }
                if readsObjects, let read = self.readObject(named: name, at: &cursor) { return read }
                guard name == "event" || name == "input-push-channel", cursor.peek == UInt8(ascii: "\"") else {
                    return cursor.skipValue()
                }
                let value = cursor.string()
                if name == "event" { self.event = value } else { self.inputPushChannel = value }
                return value != nil
            }
        }
        guard wellFormed, found, cursor.isAtEnd else { return nil }
    }

    /// Reads `attributes-type`, `attributes` or `content-state` (whether it was well formed);
    /// `nil` for any other member, which the caller reads.
    private mutating func readObject(named name: String, at cursor: inout JSONCursor) -> Bool? {
        switch name {
        case "attributes-type":
            guard cursor.peek == UInt8(ascii: "\"") else { return cursor.skipValue() }
            attributesType = cursor.string()
            return attributesType != nil
        case "attributes", "content-state":
            guard cursor.peek == UInt8(ascii: "{") else { return cursor.skipValue() }
            var integers: [String] = []
            var present: [String] = []
            let wellFormed = cursor.members { member, cursor in
                if cursor.leadingInteger != nil { integers.append(member) }
                if cursor.peek != UInt8(ascii: "n") { present.append(member) }
                return cursor.skipValue()
            }
            if name == "attributes" {
                attributeIntegers = integers
                attributeNames = present
            } else {
                contentStateIntegers = integers
                contentStateNames = present
            }
            return wellFormed
        default:
            return nil
        }
    }
}

/// A position in JSON text, read forward.
private struct JSONCursor {
    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next byte that is not white space, without taking it.
    var peek: UInt8? {
        mutating get {
            skipSpace()
            return at < bytes.count ? bytes[at] : nil
        }
    }

    /// How many ASCII digits come next (after white space), without taking them.
    var leadingDigits: Int {
        mutating get {
            skipSpace()
            var end = at
            while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 { end += 1 }
            return end - at
        }
    }

    /// The whole part of the number that comes next (after white space), without taking it;
    /// `nil` when no number comes or it does not fit.
    var leadingInteger: Int64? {
        mutating get {
            skipSpace()
            var end = at
            if end < bytes.count, bytes[end] == UInt8(ascii: "-") { end += 1 }
            var value: Int64 = 0
            let digitsStart = end
            while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 {
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                value = times + Int64(bytes[end] - 0x30)
                end += 1
            }
            guard end > digitsStart else { return nil }
            return bytes[at] == UInt8(ascii: "-") ? -value : value
        }
    }

    /// Whether only white space is left.
    var isAtEnd: Bool { mutating get { peek == nil } }

    /// Reads an object, calling `member` with each name and the cursor at its value, which
    /// `member` must read; false when the text is not a well-formed object.
    mutating func members(_ member: (String, inout JSONCursor) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let name = string(), take(UInt8(ascii: ":")), member(name, &self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// Reads a string, unescaping it (`\u` escapes become U+FFFD: names that matter are ASCII).
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        // Most strings have no escape: read them in place (short ones then allocate nothing).
        let start = at
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\") { at += 1 }
        if at < bytes.count, bytes[at] == UInt8(ascii: "\"") {
            at += 1
            return String(decoding: bytes[start..<at - 1], as: UTF8.self)
        }
        var text = Array(bytes[start..<at])
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { return nil }
                let escaped = bytes[at]
                at += 1
                switch escaped {
                case UInt8(ascii: "u"):
                    guard at + 4 <= bytes.count else { return nil }
                    at += 4
                    text += [0xEF, 0xBF, 0xBD]
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                default: text.append(escaped)
                }
            default:
                text.append(byte)
            }
        }
        return nil
    }

    /// Steps over one value of any kind; false when it is not well formed.
    mutating func skipValue() -> Bool {
        switch peek {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"):
            at += 1
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                guard skipString(), take(UInt8(ascii: ":")), skipValue() else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            at += 1
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                guard skipValue() else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        case nil:
            return false
        default:
            // A number, true, false or null: up to the next delimiter.
            let start = at
            while at < bytes.count, !Self.isDelimiter(bytes[at]) { at += 1 }
            return at > start
        }
    }

    /// Steps over a string without building it.
    private mutating func skipString() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: "\""):
                at += 1
                return true
            case UInt8(ascii: "\\"): at += 2
            default: at += 1
            }
        }
        return false
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0D, 0x0A: true
        default: false
        }
    }

    private mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D {
            at += 1
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        at += 1
        return true
    }
}
