import Encodings

/// One push a mock answered, as `pushbench mock --record` writes it and `pushbench budget
/// --traffic` reads it: a CSV line (RFC 4180 quoting), so any sender's traffic can be
/// inspected in a spreadsheet and its accepted Live Activity pushes replayed into the budget
/// model.
///
/// Columns, in order: `received_ms` (UNIX milliseconds), `connection` (the client's port),
/// `device_token`, `apns_push_type`, `apns_topic`, `apns_priority` (10 when absent, as APNs
/// assumes), `apns_expiration`, `apns_collapse_id` (empty when absent), `payload_bytes`,
/// `status`, `reason` (empty for 200), and from the payload's `aps`: `event`,
/// `aps_timestamp_s`, `stale_date_s`, `dismissal_date_s` (empty when missing); then what the
/// sender doctor reads (`SenderPractices`): `provider_token_fnv` (a digest of the
/// `authorization` header that tells tokens apart and cannot be used as one), `provider_token_iat_s`
/// (its `iat` when it verified), `streams_open` (on the connection as the push arrived, this
/// one included), `apns_id` (as sent, empty when absent), `payload_fnv` (a digest of the body)
/// and `retry_after_s` (what the answer asked, empty when nothing). Recordings made before these
/// six columns existed are still read, with the columns empty.
public struct TrafficRecord: Sendable, Equatable {
    /// When the mock received it, UNIX milliseconds.
    public var receivedMs: Int64
    /// The connection it came on: the client's port.
    public var connection: Int
    /// The device token of the path.
    public var deviceToken: String
    /// `apns-push-type`.
    public var pushType: String
    /// `apns-topic`.
    public var topic: String
    /// `apns-priority`.
    public var priority: Int
    /// `apns-expiration`, as sent.
    public var expiration: String
    /// `apns-collapse-id`, as sent.
    public var collapseID: String
    /// Body size in bytes.
    public var payloadBytes: Int
    /// The HTTP status the mock answered.
    public var status: Int
    /// The reason of an error answer.
    public var reason: String
    /// `aps.event`, if the payload had one.
    public var event: LifecyclePhase?
    /// `aps.timestamp`, if the payload had one.
    public var timestampSeconds: Int64?
    /// `aps.stale-date`, if the payload had one.
    public var staleDateSeconds: Int64?
    /// `aps.dismissal-date`, if the payload had one.
    public var dismissalDateSeconds: Int64?
    /// A digest of the `authorization` header (`FNV1a.hex`), empty when there was none.
    public var providerToken: String
    /// The provider token's `iat`, UNIX seconds, when the mock verified it.
    public var issuedAtSeconds: Int64?
    /// Streams open on the connection when it arrived, itself included.
    public var streamsOpen: Int?
    /// `apns-id`, as sent.
    public var apnsID: String
    /// A digest of the body (`FNV1a.hex`), empty for an empty body.
    public var payloadDigest: String
    /// The `Retry-After` the answer carried, seconds.
    public var retryAfterSeconds: Int?

    /// The header line.
    public static let header =
        firstHeader + ",provider_token_fnv,provider_token_iat_s,streams_open,apns_id,payload_fnv,retry_after_s"
    /// The header line of recordings made before the doctor's columns.
    static let firstHeader =
        "received_ms,connection,device_token,apns_push_type,apns_topic,apns_priority,apns_expiration,"
        + "apns_collapse_id,payload_bytes,status,reason,event,aps_timestamp_s,stale_date_s,dismissal_date_s"
    /// The header lines a traffic file may start with.
    public static let headers: Set<String> = [header, firstHeader]

    private static let fieldCount = 21
    /// The columns of recordings made before the doctor's six.
    private static let firstFieldCount = 15

    /// Creates a record; unnamed fields are empty.
    public init(
        receivedMs: Int64,
        connection: Int = 0,
        deviceToken: String,
        pushType: String,
        topic: String = "",
        priority: Int,
        expiration: String = "",
        collapseID: String = "",
        payloadBytes: Int = 0,
        status: Int = 200,
        reason: String = "",
        event: LifecyclePhase?,
        timestampSeconds: Int64?,
        staleDateSeconds: Int64? = nil,
        dismissalDateSeconds: Int64? = nil,
        providerToken: String = "",
        issuedAtSeconds: Int64? = nil,
        streamsOpen: Int? = nil,
        apnsID: String = "",
        payloadDigest: String = "",
        retryAfterSeconds: Int? = nil
    ) {
        self.receivedMs = receivedMs
        self.connection = connection
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payloadBytes = payloadBytes
        self.status = status
        self.reason = reason
        self.event = event
        self.timestampSeconds = timestampSeconds
        self.staleDateSeconds = staleDateSeconds
        self.dismissalDateSeconds = dismissalDateSeconds
        self.providerToken = providerToken
        self.issuedAtSeconds = issuedAtSeconds
        self.streamsOpen = streamsOpen
        self.apnsID = apnsID
        self.payloadDigest = payloadDigest
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// Whether the mock accepted it (200).
    public var accepted: Bool { status == 200 }

    /// The record as one CSV line, without its line end.
    public var csvLine: String {
        var bytes: [UInt8] = []
        appendCSVLine(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the record as one CSV line, without its line end, to `bytes`: field by field,
    /// with no string built on the way, since the mock records every push it answers.
    public func appendCSVLine(to bytes: inout [UInt8]) {
        // A field as RFC 4180 writes it: quoted, with quotes doubled, when it holds a comma, a
        // quote or a line break (a collapse id may).
        func text(_ field: String) {
            bytes.append(UInt8(ascii: ","))
            // Bytes, not Characters: comparing Characters costs a string comparison each.
            var field = field
            field.withUTF8 { utf8 in
                guard utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
                    return bytes.append(contentsOf: utf8)
                }
                bytes.append(UInt8(ascii: "\""))
                for byte in utf8 {
                    if byte == UInt8(ascii: "\"") { bytes.append(byte) }
                    bytes.append(byte)
                }
                bytes.append(UInt8(ascii: "\""))
            }
        }
        func number(_ value: (some BinaryInteger)?) {
            bytes.append(UInt8(ascii: ","))
            if let value { DecimalDigits.withDigits(of: Int64(value)) { bytes.append(contentsOf: $0) } }
        }
        DecimalDigits.withDigits(of: receivedMs) { bytes.append(contentsOf: $0) }
        number(connection)
        text(deviceToken)
        text(pushType)
        text(topic)
        number(priority)
        text(expiration)
        text(collapseID)
        number(payloadBytes)
        number(status)
        text(reason)
        text(event?.rawValue ?? "")
        number(timestampSeconds)
        number(staleDateSeconds)
        number(dismissalDateSeconds)
        text(providerToken)
        number(issuedAtSeconds)
        number(streamsOpen)
        text(apnsID)
        text(payloadDigest)
        number(retryAfterSeconds)
    }

    /// Parses a line written by `csvLine`.
    /// - Throws: `WorkloadError` saying which field is wrong.
    public init(csvLine line: Substring) throws {
        var fields = try Self.fields(of: line)
        guard fields.count == Self.fieldCount || fields.count == Self.firstFieldCount else {
            throw WorkloadError("expected \(Self.fieldCount) fields, found \(fields.count)")
        }
        fields += Array(repeating: "", count: Self.fieldCount - fields.count)
        func integer(_ index: Int, _ name: String) throws -> Int64 {
            guard let value = Int64(fields[index]) else {
                throw WorkloadError("\(name) '\(fields[index])' is not a number")
            }
            return value
        }
        func optional(_ index: Int, _ name: String) throws -> Int64? {
            fields[index].isEmpty ? nil : try integer(index, name)
        }
        var event: LifecyclePhase? = nil
        if !fields[11].isEmpty {
            guard let phase = LifecyclePhase(rawValue: fields[11]) else {
                throw WorkloadError("event '\(fields[11])' is not start, update or end")
            }
            event = phase
        }
        self.init(
            receivedMs: try integer(0, "received_ms"),
            connection: Int(try integer(1, "connection")),
            deviceToken: fields[2],
            pushType: fields[3],
            topic: fields[4],
            priority: Int(try integer(5, "apns_priority")),
            expiration: fields[6],
            collapseID: fields[7],
            payloadBytes: Int(try integer(8, "payload_bytes")),
            status: Int(try integer(9, "status")),
            reason: fields[10],
            event: event,
            timestampSeconds: try optional(12, "aps_timestamp_s"),
            staleDateSeconds: try optional(13, "stale_date_s"),
            dismissalDateSeconds: try optional(14, "dismissal_date_s"),
            providerToken: fields[15],
            issuedAtSeconds: try optional(16, "provider_token_iat_s"),
            streamsOpen: try optional(17, "streams_open").map { Int($0) },
            apnsID: fields[18],
            payloadDigest: fields[19],
            retryAfterSeconds: try optional(20, "retry_after_s").map { Int($0) }
        )
    }

    /// Splits one RFC 4180 line into its fields.
    private static func fields(of line: Substring) throws -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            index = line.index(after: index)
            if quoted {
                if character == "\"" {
                    if index < line.endIndex && line[index] == "\"" {
                        field.append("\"")
                        index = line.index(after: index)
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else if character == "\"" && field.isEmpty {
                quoted = true
            } else if character == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        guard !quoted else { throw WorkloadError("a quoted field is not closed") }
        fields.append(field)
        return fields
    }
}
