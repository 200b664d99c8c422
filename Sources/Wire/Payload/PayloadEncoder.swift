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

    /// Where a payload is written first: `limit` bytes, so one over the limit is cut off there
    /// (and refused), and what fits is copied to `bytes` in one piece.
    private var scratch: [UInt8]

    /// Creates an encoder with the given size limit.
    public init(limit: Int = PayloadEncoder.deviceLimit) {
        self.limit = limit
        scratch = [UInt8](repeating: 0, count: limit)
        bytes.reserveCapacity(limit)
    }

    /// Encodes `payload` as `{"aps":{...}}` into `bytes`.
    ///
    /// - Throws: `PayloadTooLargeError` when the encoded size exceeds `limit`.
    public mutating func encode(_ payload: LiveActivityPayload) throws(PayloadTooLargeError) {
        try encode(payload, template: nil) { _ in 0 }
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
        try encode(payload, template: template, value: value)
    }

    /// Encodes `payload` with its own content-state, or with `template`'s and `value`'s when
    /// there is a template. Nothing here is a closure that captures the payload or the template,
    /// which would retain and release their strings and arrays for every push.
    private mutating func encode(
        _ payload: LiveActivityPayload,
        template: ContentStateTemplate?,
        value: (Int) -> Int64
    ) throws(PayloadTooLargeError) {
        let size = scratch.withUnsafeMutableBufferPointer { buffer in
            var output = CappedBytes(buffer)
            Self.write(payload, template: template, value: value, to: &output)
            return output.count
        }
        guard size <= limit else { throw PayloadTooLargeError(size: size, limit: limit) }
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: scratch[..<size])
    }

    private static func write(
        _ payload: LiveActivityPayload,
        template: ContentStateTemplate?,
        value: (Int) -> Int64,
        to output: inout CappedBytes
    ) {
        output.append(constant: Key.apsAndTimestamp)
        JSONWriter.writeInteger(payload.timestamp, to: &output)
        output.append(constant: Key.event(payload.event))
        output.append(constant: Key.contentState)
        if let template {
            template.write(to: &output, value: value)
        } else {
            JSONWriter.write(payload.contentState, to: &output)
        }
        if let staleDate = payload.staleDate {
            output.append(constant: Key.staleDate)
            JSONWriter.writeInteger(staleDate, to: &output)
        }
        if let dismissalDate = payload.dismissalDate {
            output.append(constant: Key.dismissalDate)
            JSONWriter.writeInteger(dismissalDate, to: &output)
        }
        if let relevanceScore = payload.relevanceScore {
            output.append(constant: Key.relevanceScore)
            JSONWriter.writeDouble(relevanceScore, to: &output)
        }
        if let attributesType = payload.attributesType {
            output.append(constant: Key.attributesType)
            JSONWriter.writeString(attributesType, to: &output)
        }
        if let attributes = payload.attributes {
            output.append(constant: Key.attributes)
            JSONWriter.write(attributes, to: &output)
        }
        if payload.inputPushToken {
            output.append(constant: Key.inputPushToken)
            JSONWriter.writeInteger(1, to: &output)
        }
        if let channel = payload.inputPushChannel {
            output.append(constant: Key.inputPushChannel)
            JSONWriter.writeString(channel, to: &output)
        }
        if let alert = payload.alert {
            output.append(constant: Key.alertAndTitle)
            JSONWriter.writeString(alert.title, to: &output)
            output.append(constant: Key.body)
            JSONWriter.writeString(alert.body, to: &output)
            if let sound = alert.sound {
                output.append(constant: Key.sound)
                JSONWriter.writeString(sound, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
        output.append(constant: Key.closing)
    }
}

/// The payload's keys as they are written, comma and colon included: constant bytes, so a key
/// costs one copy, with no string escaped anew and no array's reference count touched.
private enum Key {
    static var apsAndTimestamp: StaticString { #"{"aps":{"timestamp":"# }
    /// The `event` member, value included: there are three.
    static func event(_ event: LiveActivityPayload.Event) -> StaticString {
        switch event {
        case .start: #","event":"start""#
        case .update: #","event":"update""#
        case .end: #","event":"end""#
        }
    }
    static var contentState: StaticString { #","content-state":"# }
    static var staleDate: StaticString { #","stale-date":"# }
    static var dismissalDate: StaticString { #","dismissal-date":"# }
    static var relevanceScore: StaticString { #","relevance-score":"# }
    static var attributesType: StaticString { #","attributes-type":"# }
    static var attributes: StaticString { #","attributes":"# }
    static var inputPushToken: StaticString { #","input-push-token":"# }
    static var inputPushChannel: StaticString { #","input-push-channel":"# }
    static var alertAndTitle: StaticString { #","alert":{"title":"# }
    static var body: StaticString { #","body":"# }
    static var sound: StaticString { #","sound":"# }
    static var closing: StaticString { "}}" }
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
