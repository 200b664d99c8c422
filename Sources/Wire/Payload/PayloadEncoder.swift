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
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: Self.apsPrefix)
        JSONWriter.writeString("timestamp", to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        JSONWriter.writeInteger(payload.timestamp, to: &bytes)
        appendKey("event")
        JSONWriter.writeString(payload.event.rawValue, to: &bytes)
        appendKey("content-state")
        JSONWriter.write(payload.contentState, to: &bytes)
        if let staleDate = payload.staleDate {
            appendKey("stale-date")
            JSONWriter.writeInteger(staleDate, to: &bytes)
        }
        if let dismissalDate = payload.dismissalDate {
            appendKey("dismissal-date")
            JSONWriter.writeInteger(dismissalDate, to: &bytes)
        }
        if let relevanceScore = payload.relevanceScore {
            appendKey("relevance-score")
            JSONWriter.writeDouble(relevanceScore, to: &bytes)
        }
        if let attributesType = payload.attributesType {
            appendKey("attributes-type")
            JSONWriter.writeString(attributesType, to: &bytes)
        }
        if let attributes = payload.attributes {
            appendKey("attributes")
            JSONWriter.write(attributes, to: &bytes)
        }
        if payload.inputPushToken {
            appendKey("input-push-token")
            JSONWriter.writeInteger(1, to: &bytes)
        }
        if let channel = payload.inputPushChannel {
            appendKey("input-push-channel")
            JSONWriter.writeString(channel, to: &bytes)
        }
        if let alert = payload.alert {
            appendKey("alert")
            bytes.append(UInt8(ascii: "{"))
            JSONWriter.writeString("title", to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.writeString(alert.title, to: &bytes)
            appendKey("body")
            JSONWriter.writeString(alert.body, to: &bytes)
            if let sound = alert.sound {
                appendKey("sound")
                JSONWriter.writeString(sound, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(contentsOf: Self.closing)
        guard bytes.count <= limit else {
            throw PayloadTooLargeError(size: bytes.count, limit: limit)
        }
    }

    private mutating func appendKey(_ key: String) {
        bytes.append(UInt8(ascii: ","))
        JSONWriter.writeString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private static let apsPrefix: [UInt8] = Array(#"{"aps":{"#.utf8)
    private static let closing: [UInt8] = Array("}}".utf8)
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
