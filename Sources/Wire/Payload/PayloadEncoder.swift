/// Encodes Live Activity payloads into a reused byte buffer and enforces APNs' size limit.
///
/// One encoder belongs to one thread: `encode` overwrites the previous payload's bytes, so the
/// steady state allocates nothing. The limit is checked on the encoded bytes, which is what
/// APNs measures (`413 PayloadTooLarge` above it).
public struct PayloadEncoder {
    /// The size limit for ordinary device pushes, Live Activities included.
    public static let deviceLimit = 4096
    /// The size limit for VoIP and broadcast pushes.
    public static let largeLimit = 5120

    /// The largest payload this encoder accepts, in bytes.
    public let limit: Int
    /// The bytes of the last encoded payload.
    public private(set) var bytes: [UInt8] = []

    /// Creates an encoder with the given size limit.
    public init(limit: Int = PayloadEncoder.deviceLimit) {
        self.limit = limit
        bytes.reserveCapacity(limit)
    }

    /// Encodes `payload` as `{"aps":{...}}` into `bytes`.
    ///
    /// - Throws: `PayloadTooLargeError` when the encoded size exceeds `limit`.
    public mutating func encode(_ payload: LiveActivityPayload) throws(PayloadTooLargeError) {
        try encode(payload) { JSONWriter.write(payload.contentState, to: &$0) }
    }

    /// Encodes `payload` with the content-state that `template` spells with member `i` set to
    /// `value(i)`, in place of `payload.contentState`: the load engine's form, which sends
    /// integer states under names fixed per activity kind and so builds no `JSONValue` tree.
    ///
    /// - Throws: `PayloadTooLargeError` when the encoded size exceeds `limit`.
    public mutating func encode(
        _ payload: LiveActivityPayload,
        contentState template: ContentStateTemplate,
        value: (Int) -> Int64
    ) throws(PayloadTooLargeError) {
        try encode(payload) { template.write(to: &$0, value: value) }
    }

    private mutating func encode(
        _ payload: LiveActivityPayload,
        writeContentState: (inout [UInt8]) -> Void
    ) throws(PayloadTooLargeError) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: Key.apsAndTimestamp)
        JSONWriter.writeInteger(payload.timestamp, to: &bytes)
        bytes.append(contentsOf: Key.event)
        JSONWriter.writeString(payload.event.rawValue, to: &bytes)
        bytes.append(contentsOf: Key.contentState)
        writeContentState(&bytes)
        if let staleDate = payload.staleDate {
            bytes.append(contentsOf: Key.staleDate)
            JSONWriter.writeInteger(staleDate, to: &bytes)
        }
        if let dismissalDate = payload.dismissalDate {
            bytes.append(contentsOf: Key.dismissalDate)
            JSONWriter.writeInteger(dismissalDate, to: &bytes)
        }
        if let relevanceScore = payload.relevanceScore {
            bytes.append(contentsOf: Key.relevanceScore)
            JSONWriter.writeDouble(relevanceScore, to: &bytes)
        }
        if let attributesType = payload.attributesType {
            bytes.append(contentsOf: Key.attributesType)
            JSONWriter.writeString(attributesType, to: &bytes)
        }
        if let attributes = payload.attributes {
            bytes.append(contentsOf: Key.attributes)
            JSONWriter.write(attributes, to: &bytes)
        }
        if payload.inputPushToken {
            bytes.append(contentsOf: Key.inputPushToken)
            JSONWriter.writeInteger(1, to: &bytes)
        }
        if let channel = payload.inputPushChannel {
            bytes.append(contentsOf: Key.inputPushChannel)
            JSONWriter.writeString(channel, to: &bytes)
        }
        if let alert = payload.alert {
            bytes.append(contentsOf: Key.alertAndTitle)
            JSONWriter.writeString(alert.title, to: &bytes)
            bytes.append(contentsOf: Key.body)
            JSONWriter.writeString(alert.body, to: &bytes)
            if let sound = alert.sound {
                bytes.append(contentsOf: Key.sound)
                JSONWriter.writeString(sound, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(contentsOf: Self.closing)
        guard bytes.count <= limit else {
            throw PayloadTooLargeError(size: bytes.count, limit: limit)
        }
    }

    private static let closing: [UInt8] = Array("}}".utf8)
}

/// The payload's keys as they are written, comma and colon included, made once: a key is then
/// one copy, not a string escaped anew for every push.
private enum Key {
    static let apsAndTimestamp = bytes(#"{"aps":{"timestamp":"#)
    static let event = member("event")
    static let contentState = member("content-state")
    static let staleDate = member("stale-date")
    static let dismissalDate = member("dismissal-date")
    static let relevanceScore = member("relevance-score")
    static let attributesType = member("attributes-type")
    static let attributes = member("attributes")
    static let inputPushToken = member("input-push-token")
    static let inputPushChannel = member("input-push-channel")
    static let alertAndTitle = bytes(#","alert":{"title":"#)
    static let body = member("body")
    static let sound = member("sound")

    /// `,"name":`, for a name that needs no escaping.
    private static func member(_ name: String) -> [UInt8] { bytes(",\"\(name)\":") }
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
}

/// A payload larger than APNs accepts for its push kind.
public struct PayloadTooLargeError: Error, Equatable, CustomStringConvertible {
    /// The encoded size in bytes.
    public let size: Int
    /// The limit in bytes.
    public let limit: Int

    public var description: String {
        "payload is \(size) bytes, over the \(limit)-byte APNs limit for this push kind"
    }
}
