import Foundation
import Workload

/// The server's view of a sender's traffic, from what the mock recorded (`pushbench mock
/// --record`, `--report`): when pushes arrived, how often each device token was updated and at
/// which priority, and what was refused. A team points its own sender at the mock and sees what
/// it really sent, in the same CSV and HTML forms as a run's report.
public struct TrafficReport: Sendable {
    /// The pushes, in arrival order.
    public let records: TrafficTable
    /// Where they came from, for the page's heading.
    public let source: String
    /// Accepted pushes the mock judged as it answered them, by kind: a recording holds answers,
    /// not these judgements, so they come from the mock's counters.
    public let irregular: [Irregular]

    /// The broadcasts the mock answered, which a recording does not hold, from its counters.
    public var broadcasts: Broadcasts?

    /// The sender doctor's findings on the same traffic (`practices.json`, "Sender practices").
    public var practices: SenderPractices?

    /// The mock's count of broadcasts (iOS 18 channels).
    public struct Broadcasts: Sendable, Equatable {
        /// Broadcasts answered, every status.
        public var answered: Int
        /// Broadcasts answered 200.
        public var accepted: Int
        /// Devices the accepted broadcasts reached.
        public var deliveries: Int
        /// From accepted broadcasts to their last subscriber having them, under the mock's
        /// fan-out model, microseconds: in total and the longest.
        public var lastDeliveryMicrosTotal: Int
        public var lastDeliveryMicrosMax: Int

        /// Creates the counts.
        public init(
            answered: Int,
            accepted: Int,
            deliveries: Int,
            lastDeliveryMicrosTotal: Int,
            lastDeliveryMicrosMax: Int
        ) {
            self.answered = answered
            self.accepted = accepted
            self.deliveries = deliveries
            self.lastDeliveryMicrosTotal = lastDeliveryMicrosTotal
            self.lastDeliveryMicrosMax = lastDeliveryMicrosMax
        }

        /// The mean time until an accepted broadcast's last subscriber had it, milliseconds.
        public var meanLastDeliveryMs: Double {
            accepted > 0 ? Double(lastDeliveryMicrosTotal) / Double(accepted) / 1000 : 0
        }
    }

    /// Accepted pushes of one kind that APNs answers 200 although they differ from Apple's
    /// documents, or that a device would drop (`docs/mock-conformance.md`).
    public struct Irregular: Sendable, Equatable {
        /// The counter as `/stats` names it: `accepted_irregular` or `live_activity_would_drop`.
        public var counter: String
        /// The kind within it, such as `iat_string` or `StartWithoutAttributesType`.
        public var kind: String
        /// How many pushes.
        public var pushes: Int

        /// Creates a count.
        public init(counter: String, kind: String, pushes: Int) {
            self.counter = counter
            self.kind = kind
            self.pushes = pushes
        }
    }

    /// Creates the report of `records`, with the mock's `irregular` counts when it has them.
    public init(records: TrafficTable, source: String, irregular: [Irregular] = []) {
        self.records = records
        self.source = source
        self.irregular = irregular
    }

    /// Creates the report of `records` (any order), as the table's initialiser does.
    public init(records: [TrafficRecord], source: String, irregular: [Irregular] = []) {
        self.init(records: TrafficTable(records), source: source, irregular: irregular)
    }

    /// Pushes the mock accepted.
    public var accepted: Int { records.count { $0.accepted } }
    /// Distinct device tokens.
    public var tokens: Int { records.tokenCount }
    /// Distinct connections.
    public var connections: Int { Set(records.lazy.map(\.connection)).count }
    /// From the first arrival to the last, seconds.
    public var durationSeconds: Double {
        guard let first = records.first, let last = records.last else { return 0 }
        return Double(last.receivedMs - first.receivedMs) / 1000
    }

    /// Pushes per whole second since the first arrival: all, accepted, refused, and at each
    /// priority.
    public struct Second: Sendable, Equatable {
        public var pushes = 0
        public var accepted = 0
        public var refused = 0
        public var priority10 = 0
        public var priority5 = 0
        public var priority1 = 0
    }

    /// The arrival series, one entry per second from the first push to the last.
    public var seconds: [Second] {
        guard let first = records.first?.receivedMs, let last = records.last?.receivedMs else { return [] }
        var seconds = Array(repeating: Second(), count: Int((last - first) / 1000) + 1)
        for record in records {
            let index = Int((record.receivedMs - first) / 1000)
            seconds[index].pushes += 1
            if record.accepted { seconds[index].accepted += 1 } else { seconds[index].refused += 1 }
            switch record.priority {
            case 10: seconds[index].priority10 += 1
            case 5: seconds[index].priority5 += 1
            default: seconds[index].priority1 += 1
            }
        }
        return seconds
    }

    /// Pushes by push type and priority, most first.
    public var priorityMix: [(pushType: String, priority: Int, pushes: Int)] {
        Self.counted(records) { PushKind(pushType: $0.pushType, priority: $0.priority) }
            .map { ($0.key.pushType, $0.key.priority, $0.value) }
            .sorted { ($1.2, $0.0, $0.1) < ($0.2, $1.0, $1.1) }
    }

    /// Refused pushes by status and reason, most first.
    public var refusals: [(status: Int, reason: String, pushes: Int)] {
        Self.counted(records.lazy.filter { !$0.accepted }) { Refusal(status: $0.status, reason: $0.reason) }
            .map { ($0.key.status, $0.key.reason, $0.value) }
            .sorted { ($1.2, $0.1) < ($0.2, $1.1) }
    }

    /// Live Activity events (`start`, `update`, `end`, or `none`), with their counts.
    public var events: [(event: String, pushes: Int)] {
        Self.counted(records) { $0.event?.rawValue ?? "none" }
            .map { ($0.key, $0.value) }
            .sorted { $0.0 < $1.0 }
    }

    /// A push type at a priority, as `priorityMix` counts them.
    private struct PushKind: Hashable {
        var pushType: String
        var priority: Int
    }

    /// A refusal's status and reason, as `refusals` counts them.
    private struct Refusal: Hashable {
        var status: Int
        var reason: String
    }

    /// How many of `records` have each `key`: counted, not grouped, so that no record is copied.
    private static func counted<Key: Hashable>(
        _ records: some Sequence<TrafficRecord>,
        by key: (TrafficRecord) -> Key
    ) -> [Key: Int] {
        var counts: [Key: Int] = [:]
        for record in records { counts[key(record), default: 0] += 1 }
        return counts
    }

    /// How each device token was updated: the gaps between its consecutive pushes, its pushes in
    /// all, and its priority-10 pushes per hour of the recording (what the device's budget
    /// spends), each at the percentiles `cadencePercentiles` lists.
    public struct Cadence: Sendable, Equatable {
        /// Gaps between a token's consecutive pushes, seconds, at each percentile.
        public var gapSeconds: [Double]
        /// Pushes per token, at each percentile.
        public var pushesPerToken: [Double]
        /// Priority-10 pushes per token per hour, at each percentile.
        public var priority10PerHour: [Double]
    }

    /// The percentiles the cadence is read at.
    public static let cadencePercentiles: [Double] = [0, 10, 50, 90, 99, 100]

    /// The per-token cadence.
    public var cadence: Cadence {
        let hours = max(durationSeconds, 1) / 3600
        var pushes = [Double](repeating: 0, count: records.tokenCount)
        var priority10 = [Double](repeating: 0, count: records.tokenCount)
        // The previous push to each token, by the token's number, for the gaps between them.
        var previousMs = [Int64?](repeating: nil, count: records.tokenCount)
        var gaps: [Double] = []
        for (position, record) in zip(records.indices, records) {
            let token = records.tokenNumber(at: position)
            pushes[token] += 1
            if record.priority == 10 { priority10[token] += 1 }
            if let previous = previousMs[token] { gaps.append(Double(record.receivedMs - previous) / 1000) }
            previousMs[token] = record.receivedMs
        }
        priority10 = priority10.map { $0 / hours }
        func at(_ values: [Double]) -> [Double] { Self.percentiles(of: values, at: Self.cadencePercentiles) }
        return Cadence(gapSeconds: at(gaps), pushesPerToken: at(pushes), priority10PerHour: at(priority10))
    }

    /// Nearest-rank percentiles of `values` (0 for none).
    static func percentiles(of values: [Double], at levels: [Double]) -> [Double] {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return levels.map { _ in 0 } }
        return levels.map { level in
            let rank = Int((level / 100 * Double(sorted.count)).rounded(.up))
            return sorted[min(max(rank, 1), sorted.count) - 1]
        }
    }
}
