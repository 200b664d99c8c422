import Foundation
import Pages

/// What `profile --api` measured of a sender service beyond a sender's figures: its API's
/// answers while registering and while taking events, and each call's fan-out to the mock.
public struct ServiceFigures: Sendable {
    /// One event call and the pushes it caused.
    public struct Call: Sendable, Equatable {
        /// The scenario's name for the event, and the group it went to.
        public var kind: String
        public var group: Int
        /// Seconds after the first call's intended time at which it was due.
        public var dueS: Double
        /// Pushes it should cause, those that arrived, and those a later push of their activity
        /// superseded (the service coalesced them into it).
        public var expected: Int
        public var arrived: Int
        public var superseded = 0
        /// Whether the service owed it on its own clock (`service_sends`), no call sent.
        public var ownClock = false
        /// When the first, half, 99% and last of its pushes arrived, milliseconds after its
        /// intended time; `nil` when that many never arrived.
        public var firstMs: Double?
        public var halfMs: Double?
        public var p99Ms: Double?
        public var lastMs: Double?

        /// Creates a call's figures.
        public init(
            kind: String,
            group: Int,
            dueS: Double,
            expected: Int,
            arrived: Int,
            firstMs: Double?,
            halfMs: Double?,
            p99Ms: Double?,
            lastMs: Double?
        ) {
            self.kind = kind
            self.group = group
            self.dueS = dueS
            self.expected = expected
            self.arrived = arrived
            self.firstMs = firstMs
            self.halfMs = halfMs
            self.p99Ms = p99Ms
            self.lastMs = lastMs
        }
    }

    /// The registrations before the clock: `register`'s, or a lifecycle's push-to-start token
    /// reports (`nil` when its devices had none to report).
    public var registrations: RunSummary.APIPhase?
    public var api: RunSummary.APIPhase
    public var fanout: RunSummary.Fanout
    /// The devices' side, when PushBench played them.
    public var lifecycle: RunSummary.Lifecycle?
    /// Every call, in order, for the fan-out chart.
    public var calls: [Call]
    /// The service's CPU from the clock's start to its end, per push the mock received,
    /// microseconds: the fan-out's cost without the registrations' (`fanout.service_cpu_us_per_push`).
    public var eventsCPUUsPerPush: Double? { fanout.serviceCPUUsPerPush }

    /// Figures from the phases' answers and the calls.
    public init(
        registrations: RunSummary.APIPhase?,
        api: RunSummary.APIPhase,
        lifecycle: RunSummary.Lifecycle? = nil,
        calls: [Call],
        extra: Int,
        matchedByTag: Int,
        eventsCPUUsPerPush: Double?
    ) {
        self.registrations = registrations
        self.api = api
        self.lifecycle = lifecycle
        self.calls = calls
        fanout = RunSummary.Fanout(calls: calls, extra: extra, matchedByTag: matchedByTag)
        fanout.serviceCPUUsPerPush = eventsCPUUsPerPush
    }
}

extension RunSummary {
    /// Microseconds at the median, p90, p99 and the largest, over `count` values.
    public struct MicrosecondPercentiles: Codable, Sendable, Equatable {
        public var count: Int
        public var p50: UInt64
        public var p90: UInt64
        public var p99: UInt64
        public var max: UInt64

        /// Creates the percentiles.
        public init(count: Int, p50: UInt64, p90: UInt64, p99: UInt64, max: UInt64) {
            self.count = count
            self.p50 = p50
            self.p90 = p90
            self.p99 = p99
            self.max = max
        }
    }

    /// Milliseconds at the median, p90, p99 and the largest, over `count` values.
    public struct MillisecondPercentiles: Codable, Sendable, Equatable {
        public var count: Int
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var max: Double

        /// The percentiles of `values` (nearest rank), or `nil` when there are none.
        public init?(_ values: [Double]) {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            func at(_ share: Double) -> Double {
                sorted[Swift.max(0, Int((share * Double(sorted.count)).rounded(.up)) - 1)]
            }
            count = sorted.count
            p50 = at(0.5)
            p90 = at(0.9)
            p99 = at(0.99)
            max = sorted[sorted.count - 1]
        }

        /// The percentiles read from a histogram of microseconds.
        public init(count: Int, p50Us: UInt64, p90Us: UInt64, p99Us: UInt64, maxUs: UInt64) {
            self.count = count
            p50 = Double(p50Us) / 1000
            p90 = Double(p90Us) / 1000
            p99 = Double(p99Us) / 1000
            max = Double(maxUs) / 1000
        }
    }

    /// One phase of a service's API (`registrations`, or `api` for the events): every request
    /// accounted for, `sent = succeeded + refused + timed_out + failed`.
    public struct APIPhase: Codable, Sendable, Equatable {
        /// The request: method and URL as the API file writes them (variables unfilled).
        public var method: String
        public var url: String
        /// `group` or `activity` for the events; `nil` for registrations.
        public var per: String?
        public var sent: Int
        public var succeeded: Int
        /// Answered with a status the file does not count as success.
        public var refused: Int
        public var timedOut: Int
        /// Failed below HTTP, by class as `run` counts transport failures.
        public var failed: Int
        public var byStatus: [String: Int]
        public var failedByClass: [String: Int]
        /// From each request's intended time to its answer.
        public var latencyMs: MillisecondPercentiles?
        /// Requests a second, and the phase's length.
        public var perS: Double
        public var durationS: Double
        public var httpVersions: [Int]
        /// Registrations: in flight at once, and the rate limit when one was set.
        public var concurrency: Int?
        public var rateLimitPerS: Double?
        /// PushBench's own client, apart from the service: its connections (as many requests
        /// in flight at most), the most it had in flight, the requests that waited a millisecond
        /// or more in its queue for a connection, and how long each waited, microseconds.
        public var connections: Int?
        public var peakInFlight: Int?
        public var waited: Int?
        public var queuedUs: MicrosecondPercentiles?

        /// Creates the phase's figures.
        public init(
            method: String,
            url: String,
            per: String?,
            sent: Int,
            succeeded: Int,
            refused: Int,
            timedOut: Int,
            failed: Int,
            byStatus: [Int: Int],
            failedByClass: [String: Int],
            latencyMs: MillisecondPercentiles?,
            durationS: Double,
            httpVersions: [Int],
            concurrency: Int? = nil,
            rateLimitPerS: Double? = nil,
            client: Client? = nil
        ) {
            self.method = method
            self.url = url
            self.per = per
            self.sent = sent
            self.succeeded = succeeded
            self.refused = refused
            self.timedOut = timedOut
            self.failed = failed
            self.byStatus = Dictionary(uniqueKeysWithValues: byStatus.map { (String($0.key), $0.value) })
            self.failedByClass = failedByClass
            self.latencyMs = latencyMs
            self.durationS = durationS
            perS = durationS > 0 ? Double(sent) / durationS : 0
            self.httpVersions = httpVersions
            self.concurrency = concurrency
            self.rateLimitPerS = rateLimitPerS
            connections = client?.connections
            peakInFlight = client?.peakInFlight
            waited = client?.waited
            queuedUs = client?.queuedUs
        }

        /// What PushBench's own client saw of its limits in the phase.
        public struct Client: Sendable {
            public var connections: Int
            public var peakInFlight: Int
            public var waited: Int
            public var queuedUs: MicrosecondPercentiles?

            /// Creates the client's figures.
            public init(connections: Int, peakInFlight: Int, waited: Int, queuedUs: MicrosecondPercentiles?) {
                self.connections = connections
                self.peakInFlight = peakInFlight
                self.waited = waited
                self.queuedUs = queuedUs
            }
        }

        /// Requests that never left PushBench's queue before their deadline.
        public var queueTimeouts: Int { failedByClass["pushbench_queue_timeout"] ?? 0 }

        /// Whether PushBench's own client set the pace: a request waited for a connection.
        public var clientSaturated: Bool { (waited ?? 0) > 0 || queueTimeouts > 0 }

        /// No event API: a service that sends on its own clock is called only to be told.
        public static let none = APIPhase(
            method: "",
            url: "",
            per: nil,
            sent: 0,
            succeeded: 0,
            refused: 0,
            timedOut: 0,
            failed: 0,
            byStatus: [:],
            failedByClass: [:],
            latencyMs: nil,
            durationS: 0,
            httpVersions: []
        )

        /// Whether the phase had a request to send (not `none`).
        public var hasRequest: Bool { !url.isEmpty }

        enum CodingKeys: String, CodingKey {
            case method, url, per, sent, succeeded, refused, failed, concurrency
            case timedOut = "timed_out"
            case byStatus = "by_status"
            case failedByClass = "failed_by_class"
            case latencyMs = "latency_ms"
            case perS = "per_s"
            case durationS = "duration_s"
            case httpVersions = "http_versions"
            case rateLimitPerS = "rate_limit_per_s"
            case connections, waited
            case peakInFlight = "peak_in_flight"
            case queuedUs = "queued_us"
        }
    }

    /// How each event call's pushes reached the mock: when the first, half, 99% and last of them
    /// arrived after the call's intended time, as percentiles over the calls that got that far.
    public struct Fanout: Codable, Sendable, Equatable {
        /// The same, for the calls of one event kind.
        public struct Kind: Codable, Sendable, Equatable {
            public var calls: Int
            /// Calls some of whose pushes never arrived.
            public var incompleteCalls: Int
            public var firstMs: MillisecondPercentiles?
            public var halfMs: MillisecondPercentiles?
            public var p99Ms: MillisecondPercentiles?
            public var lastMs: MillisecondPercentiles?

            init(_ calls: [ServiceFigures.Call]) {
                self.calls = calls.count
                incompleteCalls = calls.filter { $0.arrived + $0.superseded < $0.expected }.count
                firstMs = MillisecondPercentiles(calls.compactMap(\.firstMs))
                halfMs = MillisecondPercentiles(calls.compactMap(\.halfMs))
                p99Ms = MillisecondPercentiles(calls.compactMap(\.p99Ms))
                lastMs = MillisecondPercentiles(calls.compactMap(\.lastMs))
            }

            enum CodingKeys: String, CodingKey {
                case calls
                case incompleteCalls = "incomplete_calls"
                case firstMs = "first_ms"
                case halfMs = "half_ms"
                case p99Ms = "p99_ms"
                case lastMs = "last_ms"
            }
        }

        /// One of the slowest calls: the group it went to, and how far its fan-out got.
        public struct SlowCall: Codable, Sendable, Equatable {
            public var call: Int
            public var group: Int
            public var kind: String
            public var dueS: Double
            public var pushes: Int
            public var arrived: Int
            public var p99Ms: Double?
            public var lastMs: Double?

            enum CodingKeys: String, CodingKey {
                case call, group, kind, pushes, arrived
                case dueS = "due_s"
                case p99Ms = "p99_ms"
                case lastMs = "last_ms"
            }
        }

        public var calls: Int
        public var expectedPushes: Int
        public var matched: Int
        public var missing: Int
        /// Owed pushes a later push of their activity superseded: coalesced, not missing
        /// (absent before 0.9).
        public var superseded: Int?
        public var extra: Int
        /// Pushes matched by the `pushbench_event` the service passed through in the content state
        /// (the rest by order).
        public var matchedByTag: Int
        public var all: Kind
        public var byKind: [String: Kind]
        /// Up to ten calls: those with pushes missing first (most missing first), then the latest
        /// to complete.
        public var slowest: [SlowCall]
        /// The service's CPU from the clock's start (a second before the first call) to the
        /// profile's end, per push the mock received, microseconds: the fan-out's cost, its
        /// registrations apart. Absent when profile did not start the service (its CPU is not
        /// measured) or the clock never started.
        public var serviceCPUUsPerPush: Double?

        /// The fan-out of `calls`.
        public init(calls: [ServiceFigures.Call], extra: Int, matchedByTag: Int) {
            self.calls = calls.count
            expectedPushes = calls.reduce(0) { $0 + $1.expected }
            matched = calls.reduce(0) { $0 + $1.arrived }
            let superseded = calls.reduce(0) { $0 + $1.superseded }
            self.superseded = superseded
            missing = expectedPushes - matched - superseded
            self.extra = extra
            self.matchedByTag = matchedByTag
            all = Kind(calls)
            byKind = Dictionary(grouping: calls, by: \.kind).mapValues(Kind.init)
            slowest = calls.enumerated().sorted { a, b in
                let missingA = a.element.expected - a.element.arrived - a.element.superseded
                let missingB = b.element.expected - b.element.arrived - b.element.superseded
                if missingA != missingB { return missingA > missingB }
                return (a.element.lastMs ?? 0) > (b.element.lastMs ?? 0)
            }.prefix(10).map { index, call in
                SlowCall(
                    call: index,
                    group: call.group,
                    kind: call.kind,
                    dueS: call.dueS,
                    pushes: call.expected,
                    arrived: call.arrived,
                    p99Ms: call.p99Ms,
                    lastMs: call.lastMs
                )
            }
        }

        enum CodingKeys: String, CodingKey {
            case calls, matched, missing, superseded, extra, all, slowest
            case expectedPushes = "expected_pushes"
            case matchedByTag = "matched_by_tag"
            case byKind = "by_kind"
            case serviceCPUUsPerPush = "service_cpu_us_per_push"
        }
    }
}

extension ServiceFigures {
    /// `calls.csv`: each call to the service in the order they fell due, with the pushes it
    /// owed and those that arrived, and when its first, half, 99% and last push arrived after its
    /// intended time (empty where that many never did); last, its owed pushes a later push
    /// superseded, and whether a call owed them or the service's own clock (`service_sends`).
    public var callsTable: CSVTable {
        var table = CSVTable(columns: [
            "call", "kind", "group", "due_s", "expected_pushes", "arrived_pushes", "first_ms", "half_ms", "p99_ms",
            "last_ms", "superseded_pushes", "owed_by",
        ])
        let milliseconds = { (value: Double?) in value.map { String(format: "%.3f", $0) } ?? "" }
        for (index, call) in calls.enumerated() {
            table.append([
                String(index), call.kind, String(call.group), String(format: "%.3f", call.dueS), String(call.expected),
                String(call.arrived), milliseconds(call.firstMs), milliseconds(call.halfMs), milliseconds(call.p99Ms),
                milliseconds(call.lastMs), String(call.superseded), call.ownClock ? "service" : "call",
            ])
        }
        return table
    }
}
