/// One push a mock accepted, as `pushbench mock --record` writes it and `pushbench budget
/// --traffic` reads it: a CSV line, so any sender's traffic can be replayed into the budget
/// model and the file opened in a spreadsheet.
///
/// Columns, in order: `received_ms` (UNIX milliseconds), `device_token` (hex, as in the path),
/// `apns_push_type`, `apns_priority` (10 when the header was absent, as APNs assumes),
/// `event` (`aps.event`, empty if none), `aps_timestamp_s` (`aps.timestamp`, empty if none).
public struct TrafficRecord: Sendable, Equatable {
    /// When the mock accepted it, UNIX milliseconds.
    public var receivedMs: Int64
    /// The device token of the path.
    public var deviceToken: String
    /// `apns-push-type`.
    public var pushType: String
    /// `apns-priority`.
    public var priority: Int
    /// `aps.event`, if the payload had one.
    public var event: LifecyclePhase?
    /// `aps.timestamp`, if the payload had one.
    public var timestampSeconds: Int64?

    /// The header line.
    public static let header = "received_ms,device_token,apns_push_type,apns_priority,event,aps_timestamp_s"

    /// Creates a record.
    public init(
        receivedMs: Int64,
        deviceToken: String,
        pushType: String,
        priority: Int,
        event: LifecyclePhase?,
        timestampSeconds: Int64?
    ) {
        self.receivedMs = receivedMs
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.priority = priority
        self.event = event
        self.timestampSeconds = timestampSeconds
    }

    /// The record as a CSV line, without its line end. No field can hold a comma or a quote:
    /// tokens are hex, push types and events are words.
    public var csvLine: String {
        "\(receivedMs),\(deviceToken),\(pushType),\(priority),\(event?.rawValue ?? ""),"
            + (timestampSeconds.map(String.init) ?? "")
    }

    /// Parses a line written by `csvLine`.
    /// - Throws: `WorkloadError` saying which field is wrong.
    public init(csvLine line: Substring) throws {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 6 else { throw WorkloadError("expected 6 fields, found \(fields.count)") }
        guard let received = Int64(fields[0]) else { throw WorkloadError("received_ms '\(fields[0])' is not a number") }
        guard !fields[1].isEmpty, fields[1].allSatisfy(\.isHexDigit) else {
            throw WorkloadError("device_token '\(fields[1])' is not hex")
        }
        guard let priority = Int(fields[3]) else { throw WorkloadError("apns_priority '\(fields[3])' is not a number") }
        var event: LifecyclePhase? = nil
        if !fields[4].isEmpty {
            guard let phase = LifecyclePhase(rawValue: String(fields[4])) else {
                throw WorkloadError("event '\(fields[4])' is not start, update or end")
            }
            event = phase
        }
        var timestamp: Int64? = nil
        if !fields[5].isEmpty {
            guard let value = Int64(fields[5]) else {
                throw WorkloadError("aps_timestamp_s '\(fields[5])' is not a number")
            }
            timestamp = value
        }
        self.init(
            receivedMs: received,
            deviceToken: String(fields[1]),
            pushType: String(fields[2]),
            priority: priority,
            event: event,
            timestampSeconds: timestamp
        )
    }
}
