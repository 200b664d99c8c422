/// A recording's pushes in arrival order, held in columns rather than as `TrafficRecord`s, so
/// that the reports after a million-device run read millions of pushes in a few hundred bytes
/// each: a `TrafficRecord` is 288 bytes of struct before its strings, and each of its strings is
/// a heap allocation of its own.
///
/// Numbers are stored as they are; text is stored once per distinct value (`TextColumn`), since a
/// recording repeats the same push type, topic, provider token and device tokens over and over;
/// body digests, distinct for nearly every push, are stored as the 64-bit numbers they print.
/// Reading an element builds the `TrafficRecord` back, so checks written against records read
/// the table unchanged. The device token's `tokenNumber(at:)` lets a check keep per-token state
/// in an array instead of a dictionary keyed by 64-character strings.
public struct TrafficTable: RandomAccessCollection, Sendable {
    private var receivedMs: [Int64] = []
    private var connection: [Int] = []
    private var priority: [Int] = []
    private var payloadBytes: [Int] = []
    private var status: [Int] = []
    private var streamsOpen: [Int] = []
    private var retryAfterSeconds: [Int] = []
    private var timestampSeconds: [Int64] = []
    private var staleDateSeconds: [Int64] = []
    private var dismissalDateSeconds: [Int64] = []
    private var issuedAtSeconds: [Int64] = []
    /// Which optional fields a row has, one bit each (`Present`), and its event.
    private var present: [UInt8] = []
    private var event: [UInt8] = []
    private var deviceToken = TextColumn()
    private var pushType = TextColumn()
    private var topic = TextColumn()
    private var expiration = TextColumn()
    private var collapseID = TextColumn()
    private var reason = TextColumn()
    private var providerToken = TextColumn()
    private var apnsID = TextColumn()
    private var payloadDigest = DigestColumn()
    /// The rows in arrival order, when the rows were not appended in it.
    private var order: [Int32]?

    /// The optional fields' bits in `present`.
    private enum Present {
        static let timestamp: UInt8 = 1
        static let staleDate: UInt8 = 2
        static let dismissalDate: UInt8 = 4
        static let issuedAt: UInt8 = 8
        static let streamsOpen: UInt8 = 16
        static let retryAfter: UInt8 = 32
    }

    /// The events as `event` stores them: 0 for none, then `LifecyclePhase.allCases` from 1.
    private static let phases: [LifecyclePhase?] = [nil] + LifecyclePhase.allCases.map { $0 }

    /// A table of `records` (any order), in arrival order (`inArrivalOrder()`).
    public init(_ records: some Sequence<TrafficRecord>) {
        for record in records { append(record) }
        sortIntoArrivalOrder()
    }

    /// An empty table, for `TrafficFile` to fill and sort.
    init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { receivedMs.count }

    /// The `position`th push to arrive.
    public subscript(position: Int) -> TrafficRecord {
        let row = self.row(position)
        let present = present[row]
        func optional(_ column: [Int64], _ bit: UInt8) -> Int64? { present & bit != 0 ? column[row] : nil }
        func optional(_ column: [Int], _ bit: UInt8) -> Int? { present & bit != 0 ? column[row] : nil }
        return TrafficRecord(
            receivedMs: receivedMs[row],
            connection: connection[row],
            deviceToken: deviceToken[row],
            pushType: pushType[row],
            topic: topic[row],
            priority: priority[row],
            expiration: expiration[row],
            collapseID: collapseID[row],
            payloadBytes: payloadBytes[row],
            status: status[row],
            reason: reason[row],
            event: Self.phases[Int(event[row])],
            timestampSeconds: optional(timestampSeconds, Present.timestamp),
            staleDateSeconds: optional(staleDateSeconds, Present.staleDate),
            dismissalDateSeconds: optional(dismissalDateSeconds, Present.dismissalDate),
            providerToken: providerToken[row],
            issuedAtSeconds: optional(issuedAtSeconds, Present.issuedAt),
            streamsOpen: optional(streamsOpen, Present.streamsOpen),
            apnsID: apnsID[row],
            payloadDigest: payloadDigest[row],
            retryAfterSeconds: optional(retryAfterSeconds, Present.retryAfter)
        )
    }

    /// The device token of the `position`th push as a number from 0 to `tokenCount - 1`: equal
    /// tokens, equal numbers.
    public func tokenNumber(at position: Int) -> Int { Int(deviceToken.ids[row(position)]) }

    /// Distinct device tokens (the empty token of a push with none included).
    public var tokenCount: Int { deviceToken.distinct }

    private func row(_ position: Int) -> Int { order.map { Int($0[position]) } ?? position }

    /// Adds a record at the end; `sortIntoArrivalOrder()` puts the rows in order once all are in.
    mutating func append(_ record: TrafficRecord) {
        receivedMs.append(record.receivedMs)
        connection.append(record.connection)
        priority.append(record.priority)
        payloadBytes.append(record.payloadBytes)
        status.append(record.status)
        var bits: UInt8 = 0
        func optional<T: BinaryInteger>(_ value: T?, _ bit: UInt8, into column: inout [T]) {
            column.append(value ?? 0)
            if value != nil { bits |= bit }
        }
        optional(record.timestampSeconds, Present.timestamp, into: &timestampSeconds)
        optional(record.staleDateSeconds, Present.staleDate, into: &staleDateSeconds)
        optional(record.dismissalDateSeconds, Present.dismissalDate, into: &dismissalDateSeconds)
        optional(record.issuedAtSeconds, Present.issuedAt, into: &issuedAtSeconds)
        optional(record.streamsOpen, Present.streamsOpen, into: &streamsOpen)
        optional(record.retryAfterSeconds, Present.retryAfter, into: &retryAfterSeconds)
        present.append(bits)
        event.append(UInt8(Self.phases.firstIndex(of: record.event) ?? 0))
        deviceToken.append(record.deviceToken)
        pushType.append(record.pushType)
        topic.append(record.topic)
        expiration.append(record.expiration)
        collapseID.append(record.collapseID)
        reason.append(record.reason)
        providerToken.append(record.providerToken)
        apnsID.append(record.apnsID)
        payloadDigest.append(record.payloadDigest)
    }

    /// Orders the rows by `receivedMs`, and within one millisecond as appended (a recording's
    /// order, which is the answering order): through an index of 4 bytes a row, and only when
    /// they are not in that order already.
    mutating func sortIntoArrivalOrder() {
        guard zip(receivedMs, receivedMs.dropFirst()).contains(where: { $0 > $1 }) else { return }
        var order = (0..<Int32(receivedMs.count)).map { $0 }
        order.sort { (receivedMs[Int($0)], $0) < (receivedMs[Int($1)], $1) }
        self.order = order
    }
}
