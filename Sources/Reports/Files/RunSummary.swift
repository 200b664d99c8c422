import Basics
import Foundation
import Transport

/// `summary.json`: the machine-readable result of a run, written and read through this one
/// type, so that `merge`, `plan`, `compare` and the reports agree on every key.
///
/// Keys are snake_case with their unit in the name and are documented in `Reports/README.md`;
/// `schemaVersion` changes when a key changes meaning or disappears. Keys added later are
/// optional, so older summaries still read.
public struct RunSummary: Codable, Sendable {
    /// The schema this build writes and reads.
    public static let currentSchemaVersion = 2

    public var schemaVersion: Int
    /// What wrote it: `pushbench run` (and `merge` of runs) or `pushbench profile`. Readers
    /// branch on it, not on which optional sections are present; absent from a summary written
    /// before it was (read as `resolvedKind`).
    public var kind: Kind?
    public var runID: String
    /// `open_loop` or `closed_loop`.
    public var mode: String
    public var interrupted: Bool
    public var startedAtUnixS: Double
    public var durationS: Double
    public var counts: Counts
    public var accountingBalanced: Bool
    public var rejectedByReason: [String: Int]
    /// Transport failures by `FailureClass` raw value.
    public var erroredByKind: [String: Int]
    /// One message of each class in `erroredByKind`.
    public var erroredSamples: [String: String]?
    /// Whether pushes were sent and none succeeded.
    public var nothingSucceeded: Bool?
    /// Ended requests (attempts) per second.
    public var throughputPerS: Double
    /// Requests answered 200 per second.
    public var successesPerS: Double?
    public var latencyUs: Percentiles
    public var latencyHistogramUs: SerializedHistogram
    public var connections: [Connection]
    public var shard: ShardEntry
    public var timeseries: [Interval]
    /// How long each interval of `timeseries` is, seconds (its last may be shorter).
    public var timeseriesResolutionS: Double
    public var outages: [OutageEntry]
    public var apnsIDMismatches: Int
    public var engineCPUS: Double
    public var engineCPUUsPerRequest: Double
    /// Open loop only: how late pushes left their intended times.
    public var scheduleLagUs: Percentiles?
    public var scheduleLagHistogramUs: SerializedHistogram
    public var skippedGoneTokens: Int
    public var startsNotSent: Int
    public var retries: Retries
    public var warmup: Warmup
    /// Connections the transports tried to open.
    public var connectionAttempts: Int?
    /// Whether the run gave up on a target that answered nothing through every backoff.
    public var gaveUpOnTarget: Bool?
    /// Whether the run took every event of its scenario share; `nil` in older summaries.
    public var tookEveryEvent: Bool?
    /// `nil` when the transport cannot tell (libcurl reconnects inside).
    public var reconnections: Int?
    public var resentRefused: Int?
    public var stageNsPerPush: [String: Double]
    public var stageNsTotal: [String: UInt64]
    public var generator: Generator
    public var parameters: Parameters
    public var machine: Machine
    /// The mock's own count, when the run was checked against one.
    public var serverCounts: ServerCountsEntry?
    /// The binary that measured the run; `nil` in older summaries.
    public var build: BuildDescription?
    /// The broadcasts among `counts`, when the scenario broadcasts (absent before 0.3).
    public var broadcasts: Broadcasts?
    /// The channel requests around them, when the scenario broadcasts (absent before 0.3).
    public var channelRequests: ChannelRequests?
    /// Until APNs accepted each push, counted once per device it reaches (absent before 0.3).
    public var deviceReachUs: Percentiles?
    public var deviceReachHistogramUs: SerializedHistogram?
    /// The profiled sender, when `pushbench profile` measured one (absent before 0.4).
    public var sender: Sender?
    /// Its lag behind its schedule, and its events against its pushes (absent before 0.4).
    public var lag: Lag?
    public var events: Events?
    /// Where the sender's CPU went, when sampled (`--perf`; absent before 0.4).
    public var cpuSamples: CPUSamples?
    /// A sender service driven through its API (`profile --api`; absent before 0.5): its
    /// registrations, its event API's answers, and each call's fan-out to the mock.
    public var registrations: APIPhase?
    public var api: APIPhase?
    public var fanout: Fanout?
    /// The devices' side of a service's lifecycle, when PushBench played them (absent before 0.6).
    public var lifecycle: Lifecycle?
    /// The sealed network the sender ran in (`profile --as-apple`; absent otherwise and before 0.7).
    public var sealedNetwork: SealedNetwork?
    /// The absolute thresholds (`--threshold`) the run was judged by, with their verdicts; absent
    /// when none was given (and before 0.9).
    public var thresholds: [ThresholdVerdict]?

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version"
        case kind
        case runID = "run_id"
        case mode, interrupted
        case startedAtUnixS = "started_at_unix_s"
        case durationS = "duration_s"
        case counts
        case accountingBalanced = "accounting_balanced"
        case rejectedByReason = "rejected_by_reason"
        case erroredByKind = "errored_by_kind"
        case erroredSamples = "errored_samples"
        case nothingSucceeded = "nothing_succeeded"
        case throughputPerS = "throughput_per_s"
        case successesPerS = "successes_per_s"
        case latencyUs = "latency_us"
        case latencyHistogramUs = "latency_histogram_us"
        case connections, shard, timeseries, outages
        case timeseriesResolutionS = "timeseries_resolution_s"
        case apnsIDMismatches = "apns_id_mismatches"
        case engineCPUS = "engine_cpu_s"
        case engineCPUUsPerRequest = "engine_cpu_us_per_request"
        case scheduleLagUs = "schedule_lag_us"
        case scheduleLagHistogramUs = "schedule_lag_histogram_us"
        case skippedGoneTokens = "skipped_gone_tokens"
        case startsNotSent = "starts_not_sent"
        case retries, warmup, reconnections
        case connectionAttempts = "connection_attempts"
        case gaveUpOnTarget = "gave_up_on_target"
        case tookEveryEvent = "took_every_event"
        case resentRefused = "resent_refused"
        case stageNsPerPush = "stage_ns_per_push"
        case stageNsTotal = "stage_ns_total"
        case generator, parameters, machine
        case serverCounts = "server_counts"
        case build, broadcasts
        case channelRequests = "channel_requests"
        case deviceReachUs = "device_reach_us"
        case deviceReachHistogramUs = "device_reach_histogram_us"
        case sender, lag, events
        case cpuSamples = "cpu_samples"
        case registrations, api, fanout, lifecycle
        case sealedNetwork = "sealed_network"
        case thresholds
    }

    /// One absolute threshold (`--threshold 'p99<250ms'`) and what the run measured of it.
    public struct ThresholdVerdict: Codable, Sendable, Equatable {
        /// The threshold as it was given.
        public var expression: String
        /// The metric's name, as `--threshold` takes it.
        public var metric: String
        /// What the run measured, in `unit`; `nil` when the run has no such figure (it fails).
        public var measured: Double?
        /// The limit, in `unit`.
        public var limit: Double
        /// The unit of `measured` and `limit`: `ms`, `percent`, `per_s`, `us` or `count`.
        public var unit: String
        public var passed: Bool
        /// What the figure is, and what it is measured from.
        public var about: String

        public init(
            expression: String,
            metric: String,
            measured: Double?,
            limit: Double,
            unit: String,
            passed: Bool,
            about: String
        ) {
            self.expression = expression
            self.metric = metric
            self.measured = measured
            self.limit = limit
            self.unit = unit
            self.passed = passed
            self.about = about
        }
    }

    /// A run's broadcasts, apart from its pushes to tokens.
    public struct Broadcasts: Codable, Sendable, Equatable {
        public var counts: Counts
        public var latencyUs: Percentiles
        public var latencyHistogramUs: SerializedHistogram
        /// Subscribers of the accepted broadcasts: the devices they reached.
        public var devicesReached: Int

        enum CodingKeys: String, CodingKey {
            case counts
            case latencyUs = "latency_us"
            case latencyHistogramUs = "latency_histogram_us"
            case devicesReached = "devices_reached"
        }
    }

    /// A run's channel management requests.
    public struct ChannelRequests: Codable, Sendable, Equatable {
        public var created: Int
        public var deleted: Int
        /// `create <reason>` or `delete <reason>`.
        public var failedByReason: [String: Int]
        public var latencyUs: Percentiles
        public var latencyHistogramUs: SerializedHistogram

        enum CodingKeys: String, CodingKey {
            case created, deleted
            case failedByReason = "failed_by_reason"
            case latencyUs = "latency_us"
            case latencyHistogramUs = "latency_histogram_us"
        }
    }

    /// What a summary is the result of.
    public enum Kind: String, Codable, Sendable {
        /// PushBench's own sender (`pushbench run`, or `merge` of its shards).
        case run
        /// A team's sender, measured from outside (`pushbench profile`).
        case profile
    }

    /// The summary's kind: as written, or, for one written before summaries said it, a
    /// profile when it has a sender's section.
    public var resolvedKind: Kind { kind ?? (sender != nil ? .profile : .run) }

    /// Outcome counts: `sent = succeeded + rejected + errored + timed_out + answers_unsent`.
    public struct Counts: Codable, Sendable, Equatable {
        public var sent: Int
        public var succeeded: Int
        public var rejected: Int
        public var errored: Int
        public var timedOut: Int
        /// A profile's answers the mock decided but never wrote (their connection closed
        /// first); absent from a run's, whose sender saw those as timed out or errored.
        public var answersUnsent: Int?

        enum CodingKeys: String, CodingKey {
            case sent, succeeded, rejected, errored
            case timedOut = "timed_out"
            case answersUnsent = "answers_unsent"
        }
    }

    /// The percentiles every reader wants, microseconds (all 0 when nothing was measured).
    public struct Percentiles: Codable, Sendable, Equatable {
        public var p50: UInt64
        public var p90: UInt64
        public var p95: UInt64
        public var p99: UInt64
        public var p99_9: UInt64
        public var max: UInt64
    }

    /// A histogram as its non-empty buckets: exact, small, and mergeable bucket by bucket.
    public struct SerializedHistogram: Codable, Sendable, Equatable {
        public var lowestDiscernibleValue: UInt64
        public var highestTrackableValue: UInt64
        public var significantDigits: Int
        public var totalCount: UInt64
        /// `[value_us, count]` pairs.
        public var buckets: [[UInt64]]

        enum CodingKeys: String, CodingKey {
            case lowestDiscernibleValue = "lowest_discernible_value"
            case highestTrackableValue = "highest_trackable_value"
            case significantDigits = "significant_digits"
            case totalCount = "total_count"
            case buckets
        }
    }

    /// Requests answered on one connection.
    public struct Connection: Codable, Sendable, Equatable {
        public var shard: Int
        public var localPort: Int
        public var answered: Int

        enum CodingKeys: String, CodingKey {
            case shard
            case localPort = "local_port"
            case answered
        }
    }

    /// Which part of a sharded run this is.
    public struct ShardEntry: Codable, Sendable, Equatable {
        public var index: Int
        public var count: Int
        /// A partial merge's gaps (`merge --partial`): absent for a run and a whole merge.
        public var partial: Partial?

        /// The shards a partial merge lacks, of how many.
        public struct Partial: Codable, Sendable, Equatable {
            public var shards: Int
            public var missing: [Int]
            public var interrupted: [Int]
        }
    }

    /// One second of the series.
    public struct Interval: Codable, Sendable, Equatable {
        public var startS: Double
        public var intervalS: Double
        public var counts: Counts
        public var p50Us: UInt64
        public var p99Us: UInt64
        public var maxUs: UInt64
        /// `[value_us, count]` pairs (two significant digits); in a shard's run only.
        public var latencyBucketsUs: [[UInt64]]

        enum CodingKeys: String, CodingKey {
            case startS = "start_s"
            case intervalS = "interval_s"
            case counts
            case p50Us = "p50_us"
            case p99Us = "p99_us"
            case maxUs = "max_us"
            case latencyBucketsUs = "latency_buckets_us"
        }
    }

    /// Stretches in which nothing was answered.
    public struct OutageEntry: Codable, Sendable, Equatable {
        public var fromS: Double
        public var toS: Double
        public var errored: Int
        public var timedOut: Int

        enum CodingKeys: String, CodingKey {
            case fromS = "from_s"
            case toS = "to_s"
            case errored
            case timedOut = "timed_out"
        }
    }

    /// What retrying did.
    public struct Retries: Codable, Sendable, Equatable {
        public var maxPerPush: Int
        public var backoffBaseMs: Double
        public var attempts: Counts
        public var recovered: Int
        public var exhausted: Int

        enum CodingKeys: String, CodingKey {
            case maxPerPush = "max_per_push"
            case backoffBaseMs = "backoff_base_ms"
            case attempts, recovered, exhausted
        }
    }

    /// The warmup's own counts.
    public struct Warmup: Codable, Sendable, Equatable {
        public var seconds: Double
        public var rejectedByReason: [String: Int]
        public var counts: Counts

        enum CodingKeys: String, CodingKey {
            case seconds
            case rejectedByReason = "rejected_by_reason"
            case counts
        }
    }

    /// Whether the sender or the target set the pace.
    public struct Generator: Codable, Sendable, Equatable {
        public var workerBusyShare: Double
        /// `sender` or `target`.
        public var limitedBy: String

        enum CodingKeys: String, CodingKey {
            case workerBusyShare = "worker_busy_share"
            case limitedBy = "limited_by"
        }
    }

    /// How the pushes were paced: `kind` and the fields that kind has.
    public struct PacingEntry: Codable, Sendable, Equatable {
        /// `closed_loop`, `constant_rate`, `rate_profile`, `scenario_time` or `burst`.
        public var kind: String
        public var ratePerS: Double?
        /// `[seconds, rate]` pairs of a rate profile.
        public var points: [[Double]]?
        public var timeScale: Double?
        public var event: String?

        enum CodingKeys: String, CodingKey {
            case kind
            case ratePerS = "rate_per_s"
            case points
            case timeScale = "time_scale"
            case event
        }
    }

    /// The run's parameters: enough to restore its configuration.
    public struct Parameters: Codable, Sendable, Equatable {
        public var commandLine: String
        public var target: String
        public var origin: String
        public var scenario: String
        /// The scenario as run, as YAML.
        public var scenarioFile: String
        public var activities: Int
        public var seed: UInt64
        public var pacing: PacingEntry
        public var requestsCap: Int?
        public var durationCapS: Double?
        public var threads: Int
        public var transport: String
        public var connections: Int
        public var streamsPerConnection: Int
        public var requestTimeoutMs: Int
        public var connectTimeoutMs: Int?
        public var pingIntervalMs: Int?
        public var reconnectBackoffMs: Double?
        public var reconnectBackoffMaxMs: Double?
        public var bundleID: String
        public var topic: String
        public var priorityOverride: Int?
        public var expirationS: Int64
        public var jwtMode: String
        public var tlsVerifyPeer: Bool
        /// Sender mistakes made on purpose (`--practice`), absent when none.
        public var practices: [String]? = nil
        /// The instant every shard was told to start at (`--start-at`), UNIX seconds.
        public var startAtUnixS: Double? = nil

        enum CodingKeys: String, CodingKey {
            case commandLine = "command_line"
            case target, origin, scenario
            case scenarioFile = "scenario_file"
            case activities, seed, pacing
            case requestsCap = "requests_cap"
            case durationCapS = "duration_cap_s"
            case threads, transport, connections
            case streamsPerConnection = "streams_per_connection"
            case requestTimeoutMs = "request_timeout_ms"
            case connectTimeoutMs = "connect_timeout_ms"
            case pingIntervalMs = "ping_interval_ms"
            case reconnectBackoffMs = "reconnect_backoff_ms"
            case reconnectBackoffMaxMs = "reconnect_backoff_max_ms"
            case bundleID = "bundle_id"
            case topic
            case priorityOverride = "priority_override"
            case expirationS = "expiration_s"
            case jwtMode = "jwt_mode"
            case tlsVerifyPeer = "tls_verify_peer"
            case practices
            case startAtUnixS = "start_at_unix_s"
        }
    }

    /// The machine the run was measured on.
    public typealias Machine = MachineDescription

    /// A mock's own count of the run.
    public struct ServerCountsEntry: Codable, Sendable, Equatable {
        public var pushes: Int
        public var accepted: Int
        public var rejectedByReason: [String: Int]
        public var connections: Int
        public var matchesClient: Bool

        enum CodingKeys: String, CodingKey {
            case pushes, accepted
            case rejectedByReason = "rejected_by_reason"
            case connections
            case matchesClient = "matches_client"
        }
    }
}

extension RunSummary {
    /// The summary as `summary.json`'s bytes: pretty-printed, keys sorted.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads `path`: a `summary.json`, or the run folder holding one.
    /// - Throws: `SummaryError` naming the file and what is wrong with it: unreadable, not JSON,
    ///   another schema, or the key that is missing or malformed.
    public static func read(contentsOf path: String) throws(SummaryError) -> RunSummary {
        var isFolder: ObjCBool = false
        let file =
            FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            ? (path as NSString).appendingPathComponent("summary.json") : path
        guard let data = FileManager.default.contents(atPath: file) else {
            throw SummaryError("\(file): cannot read it (no such file, or no permission)")
        }
        return try decode(data, path: file)
    }

    /// Decodes a summary's bytes; `path` names it in errors.
    public static func decode(_ data: Data, path: String = "summary") throws(SummaryError) -> RunSummary {
        struct Version: Decodable {
            let schema_version: Int?
        }
        guard let version = try? JSONDecoder().decode(Version.self, from: data) else {
            throw SummaryError("\(path): not a JSON object; expected a run's summary.json")
        }
        guard version.schema_version == currentSchemaVersion else {
            throw SummaryError(
                "\(path): schema_version is not \(currentSchemaVersion): not a summary.json this pushbench reads"
            )
        }
        do {
            return try JSONDecoder().decode(RunSummary.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw SummaryError("\(path): \(keyPath(context.codingPath + [key])) is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw SummaryError("\(path): \(keyPath(context.codingPath)) is malformed (\(context.debugDescription))")
        } catch {
            throw SummaryError("\(path): not a summary.json: \(error)")
        }
    }

    private static func keyPath(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }
}

/// A summary that cannot be used: unreadable, not JSON, another schema, or a key missing.
public struct SummaryError: Error, CustomStringConvertible {
    public let description: String

    /// Creates an error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
