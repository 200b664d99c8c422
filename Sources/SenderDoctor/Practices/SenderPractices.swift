import Foundation
import Workload

/// The sender doctor: what a sender does wrong, judged from what the mock received
/// (`pushbench mock --report`), each finding with its evidence and what it costs, most costly
/// first.
///
/// The mistakes are the ones that fill APNs senders' issue trackers: provider tokens signed too
/// often or by every worker, clocks that skew, a connection per push, one stream where APNs
/// allows a thousand, retries that turn a 503 burst into a storm, every Live Activity update at
/// priority 10, no `apns-expiration`, stale or oversized payloads, pushes to tokens already
/// answered 410. A finding's `practice` is the name `pushbench run --practice` reproduces it
/// by, where one does, so the doctor is tested against senders whose mistakes are known.
///
/// A sender that makes none of them gets no finding: every check has a threshold that a
/// careful sender stays below (`docs/sender-doctor.md` gives each).
public struct SenderPractices: Sendable {
    /// One thing the sender does wrong.
    public struct Finding: Sendable, Equatable, Codable {
        /// The practice's name, as `pushbench run --practice` spells it where it reproduces it.
        public var practice: String
        /// What the sender does, in a sentence.
        public var title: String
        /// What in the traffic shows it: counts and times.
        public var evidence: String
        /// What it costs: refused pushes, dropped updates, handshakes, wasted requests.
        public var cost: String
        /// What a careful sender does instead.
        public var advice: String
        /// Pushes it touched (refused, dropped, wasted or at risk): what findings are ranked by.
        public var pushesAffected: Int
    }

    /// The figures the checks read, whether or not they found anything.
    public struct Figures: Sendable, Equatable, Codable {
        public var pushes = 0
        public var recordingSeconds = 0.0
        public var connections = 0
        public var connectionsPerSecond = 0.0
        public var pushesPerConnection = 0.0
        /// Most streams open at once on one connection, and the limit the mock advertised.
        public var streamsOpenMax: Int?
        public var streamsAdvertised = 0
        /// Streams open on its connection as each push arrived, itself included, at the 90th
        /// percentile: the sender's concurrency a connection as the mock saw it, a spike apart.
        public var streamsInFlightP90: Int?
        /// Pushes in flight across every connection as each push arrived, at the median and
        /// the 90th percentile: the sender's whole concurrency.
        public var inFlightP50: Int?
        public var inFlightP90: Int?
        /// A batch pattern's bursts, their pushes (the median), the time from one burst's start
        /// to the next's (the median), and the rate while busy; `nil` without a pattern.
        public var bursts: Int?
        public var burstPushesMedian: Int?
        public var burstPeriodSeconds: Double?
        public var busyRatePerSecond: Double?
        /// How long the mock held each answer back on average (its injected latency),
        /// milliseconds; `nil` when it answered at once.
        public var answerDelayMs: Double?
        public var providerTokens = 0
        /// The most provider tokens (each used more than once) used side by side.
        public var providerTokensAtOnce = 0
        /// Times a connection's token changed within 20 minutes of its previous token.
        public var providerTokenChangesWithin20Min = 0
        /// How far ahead of the mock's clock a token's `iat` was when first used, seconds (the most).
        public var issuedAtAheadMaxSeconds: Int64?
        /// `aps.timestamp` minus the mock's clock, seconds (the median).
        public var timestampOffsetMedianSeconds: Int64?
        public var retries = 0
        public var retriesAfterThrottle = 0
        public var retriesSoonerThanAsked = 0
        /// From a refused attempt's arrival to its retry's, milliseconds (the median).
        public var retryGapMedianMs: Double?
        public var liveActivityUpdates = 0
        public var priority10ShareOfUpdates: Double?
        /// Updates the budget model says devices dropped (APNs answered 200), and which model
        /// said so: the caller's (a profile's budget line, on the scenario's clock), or the
        /// default parameters replaying the recording on its own clock.
        public var budgetThrottledUpdates: Int?
        public var budgetModel: String?
        public var missingExpiration = 0
        public var expirationInPast = 0
        public var missingStaleDate = 0
        public var staleOnArrival = 0
        public var payloadsNearLimit = 0
        public var pushesToGoneTokens = 0
        /// Pushes the devices behind the mock dropped, by cause, when `profile` played them.
        public var deviceDrops: [String: Int] = [:]
    }

    /// Where the figure of updates the devices' budget drops comes from.
    public enum BudgetSource: Sendable {
        /// The recording replayed through the default parameters on its own clock, when a
        /// priority-10 finding needs it (`pushbench mock --report`).
        case replay
        /// What the caller's budget model made of the same pushes (a profile's, on the
        /// scenario's clock), so that one screen gives one figure.
        case modelled(throttledUpdates: Int, model: String)
        /// None: the caller was asked not to model the budget (`--no-budget`), and the doctor
        /// does not model it behind its back either.
        case notModelled
    }

    /// `Figures.budgetModel` when the budget was not modelled.
    static let budgetNotModelled = "not modelled"

    /// What was found, most pushes affected first.
    public let findings: [Finding]
    /// What the checks measured.
    public let figures: Figures

    /// Examines `records` (a table is in arrival order), from a mock that advertised `streamsAdvertised`
    /// concurrent streams, accepted `connectionsAccepted` connections (when known: a
    /// connection that sent nothing is not in the recording) and held its answers back
    /// `answerDelayMs` on average (when it did: an injected latency, standing for APNs' round trip).
    /// `deviceDrops` are the pushes the devices dropped by cause, when `profile` played them: the
    /// mistakes no recording shows, because APNs answered them 200. `budget` says where the figure
    /// of updates the devices' budget drops comes from.
    public init(
        records: TrafficTable,
        streamsAdvertised: Int,
        connectionsAccepted: Int? = nil,
        answerDelayMs: Double? = nil,
        deviceDrops: [String: Int] = [:],
        budget: BudgetSource = .replay
    ) {
        var figures = Figures()
        switch budget {
        case .replay: break  // `allPriority10` replays when it needs the figure
        case .modelled(let throttledUpdates, let model):
            figures.budgetThrottledUpdates = throttledUpdates
            figures.budgetModel = model
        case .notModelled: figures.budgetModel = Self.budgetNotModelled
        }
        figures.pushes = records.count
        figures.streamsAdvertised = streamsAdvertised
        figures.answerDelayMs = answerDelayMs
        if let first = records.first, let last = records.last {
            figures.recordingSeconds = Double(last.receivedMs - first.receivedMs) / 1000
        }
        var findings: [Finding] = []
        let checks: [(inout Figures, TrafficTable, Int?) -> Finding?] = [
            Self.tokenPerPushOrRefresh, Self.tokensAtOnce, Self.clockSkew, Self.connectionPerPush, Self.oneStream,
            Self.batchPattern, Self.concurrencyCapped, Self.retryWithoutBackoff, Self.allPriority10, Self.expiration,
            Self.staleDate,
            Self.payloadNearLimit,
            Self.goneTokens,
        ]
        for check in checks {
            if let finding = check(&figures, records, connectionsAccepted) { findings.append(finding) }
        }
        figures.deviceDrops = deviceDrops
        findings += Self.deviceDropFindings(deviceDrops)
        self.findings = findings.sorted { ($1.pushesAffected, $0.practice) < ($0.pushesAffected, $1.practice) }
        self.figures = figures
    }

    /// Examines `records` (any order), as the table's initialiser does.
    public init(
        records: [TrafficRecord],
        streamsAdvertised: Int,
        connectionsAccepted: Int? = nil,
        answerDelayMs: Double? = nil,
        deviceDrops: [String: Int] = [:],
        budget: BudgetSource = .replay
    ) {
        self.init(
            records: TrafficTable(records),
            streamsAdvertised: streamsAdvertised,
            connectionsAccepted: connectionsAccepted,
            answerDelayMs: answerDelayMs,
            deviceDrops: deviceDrops,
            budget: budget
        )
    }

    /// The median of `values`, `nil` for none.
    static func median<T: Comparable>(_ values: [T]) -> T? {
        values.isEmpty ? nil : values.sorted()[values.count / 2]
    }

    /// `count` of `total` as "n (p%)".
    static func share(_ count: Int, of total: Int) -> String {
        "\(count.formatted()) (\(String(format: "%.1f", total > 0 ? Double(count) * 100 / Double(total) : 0))%)"
    }
}
