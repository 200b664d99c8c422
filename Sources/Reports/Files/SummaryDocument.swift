import Foundation
import Histogram
import LoadEngine

/// Builds `summary.json`: the machine-readable result every other tool (CI gates, `merge`,
/// dashboards) reads. Its keys are documented in `Reports/README.md`; units are in the names.
public enum SummaryDocument {
    /// The schema version; bump it when a key changes meaning or disappears.
    public static let schemaVersion = 1

    /// The summary as a JSON-ready dictionary.
    public static func dictionary(_ result: RunResult, context: RunContext) -> [String: Any] {
        let configuration = result.configuration
        var summary: [String: Any] = [
            "schema_version": schemaVersion,
            "run_id": context.runID,
            "mode": result.mode.rawValue,
            "interrupted": result.interrupted,
            "started_at_unix_s": result.startedAtUnix,
            "duration_s": result.durationSeconds,
            "counts": countsEntry(result.counts),
            "accounting_balanced": result.counts.isBalanced,
            "rejected_by_reason": result.rejectedByReason,
            "errored_by_kind": result.erroredByKind,
            "errored_samples": result.erroredSamples,
            "nothing_succeeded": result.nothingSucceeded,
            "throughput_per_s": result.throughputPerSecond,
            "successes_per_s": result.successesPerSecond,
            "latency_us": latencyPercentiles(result.latency),
            "latency_histogram_us": serialized(result.latency),
            "connections": result.perConnection.sorted { $0.key < $1.key }.map {
                let connection = RunResult.connection(ofKey: $0.key)
                return ["shard": connection.shard, "local_port": connection.localPort, "answered": $0.value]
            },
            "shard": ["index": configuration.shard.index, "count": configuration.shard.count],
            "timeseries": result.timeline.map(secondEntry),
            "outages": result.outages.map {
                ["from_s": $0.fromSecond, "to_s": $0.toSecond, "errored": $0.errored, "timed_out": $0.timedOut]
            },
            "apns_id_mismatches": result.apnsIDMismatches,
            "engine_cpu_s": result.engineCPUSeconds,
            "engine_cpu_us_per_request": result.engineCPUMicrosPerRequest,
            "schedule_lag_us": result.configuration.pacing.isOpenLoop
                ? latencyPercentiles(result.scheduleLag) as Any : NSNull(),
            "schedule_lag_histogram_us": serialized(result.scheduleLag),
            "skipped_gone_tokens": result.skippedForGoneTokens,
            "starts_not_sent": result.startsNotSent,
            "retries": [
                "max_per_push": result.configuration.retryPolicy.maxRetries,
                "backoff_base_ms": result.configuration.retryPolicy.baseSeconds * 1000,
                "attempts": countsEntry(result.retries.attempts),
                "recovered": result.retries.recovered,
                "exhausted": result.retries.exhausted,
            ],
            "warmup": [
                "seconds": result.configuration.warmupSeconds,
                "rejected_by_reason": result.warmupRejectedByReason,
                "counts": countsEntry(result.warmupCounts),
            ],
            "reconnections": result.recoveries.map { $0.reconnections as Any } ?? NSNull(),
            "resent_refused": result.recoveries.map { $0.resentRefused as Any } ?? NSNull(),
            "stage_ns_per_push": GeneratorHealth.stageNanosPerPush(result),
            "stage_ns_total": Dictionary(
                uniqueKeysWithValues: StageTimes.Stage.allCases.map { ($0.name, result.stageTimes.nanos[$0.rawValue]) }
            ),
            "generator": [
                "worker_busy_share": result.workerBusyShare,
                "limited_by": result.senderLimited ? "sender" : "target",
            ],
            "parameters": [
                "command_line": context.commandLine,
                "target": context.targetDescription,
                "origin": configuration.transport.origin,
                "scenario": configuration.scenario.name,
                "scenario_file": configuration.scenario.yaml,
                "activities": configuration.scenario.activities,
                "seed": configuration.scenario.seed,
                "pacing": pacingParameters(configuration.pacing),
                "requests_cap": configuration.requests.map { $0 as Any } ?? NSNull(),
                "duration_cap_s": configuration.durationSeconds.map { $0 as Any } ?? NSNull(),
                "threads": configuration.threads,
                "transport": configuration.transportKind.rawValue,
                "connections": configuration.transport.connections,
                "streams_per_connection": configuration.transport.streamsPerConnection,
                "request_timeout_ms": configuration.transport.requestTimeoutMs,
                "bundle_id": configuration.bundleID,
                "topic": configuration.topic,
                "priority_override": configuration.priorityOverride.map { $0 as Any } ?? NSNull(),
                "expiration_s": configuration.expirationSeconds,
                "jwt_mode": configuration.tokenPolicy.rawValue,
                "tls_verify_peer": configuration.transport.verifyPeer,
            ],
            "machine": RunContext.machine,
        ]
        if let server = context.serverCounts {
            summary["server_counts"] = [
                "pushes": server.pushes,
                "accepted": server.accepted,
                "rejected_by_reason": server.rejectedByReason,
                "connections": server.connections,
                "matches_client": ServerCheck(result: result, server: server).matches,
            ]
        }
        return summary
    }

    /// Outcome counts under their summary names.
    static func countsEntry(_ counts: OutcomeCounts) -> [String: Int] {
        [
            "sent": counts.sent,
            "succeeded": counts.succeeded,
            "rejected": counts.rejected,
            "errored": counts.errored,
            "timed_out": counts.timedOut,
        ]
    }

    /// One second of the series: its counts and its latency buckets (two significant digits).
    static func secondEntry(_ sample: SecondSample) -> [String: Any] {
        [
            "second": sample.second,
            "interval_s": sample.intervalSeconds,
            "counts": countsEntry(sample.counts),
            "p50_us": sample.p50Us,
            "p99_us": sample.p99Us,
            "max_us": sample.maxUs,
            "latency_buckets_us": sample.latencyBuckets.map { [$0.valueUs, $0.count] },
        ]
    }

    /// The pacing as `{"kind": ..., "rate_per_s" | "time_scale": ...}`.
    static func pacingParameters(_ pacing: Pacing) -> [String: Any] {
        switch pacing {
        case .closedLoop: ["kind": "closed_loop"]
        case .rate(let profile) where profile.points.count == 1:
            ["kind": "constant_rate", "rate_per_s": profile.points[0].perSecond]
        case .rate(let profile): ["kind": "rate_profile", "points": profile.points.map { [$0.seconds, $0.perSecond] }]
        case .scenarioTime(let scale): ["kind": "scenario_time", "time_scale": scale]
        case .burst(let kind): ["kind": "burst", "event": kind.rawValue]
        }
    }

    /// The percentiles every reader wants, microseconds.
    static func latencyPercentiles(_ histogram: Histogram<UInt64>) -> [String: UInt64] {
        guard histogram.totalCount > 0 else {
            return ["p50": 0, "p90": 0, "p95": 0, "p99": 0, "p99_9": 0, "max": 0]
        }
        return [
            "p50": histogram.valueAtPercentile(50),
            "p90": histogram.valueAtPercentile(90),
            "p95": histogram.valueAtPercentile(95),
            "p99": histogram.valueAtPercentile(99),
            "p99_9": histogram.valueAtPercentile(99.9),
            "max": histogram.max,
        ]
    }

    /// The histogram as its non-empty buckets, `[value_us, count]`: exact, small, and mergeable
    /// by recording each pair into another histogram with the same precision.
    static func serialized(_ histogram: Histogram<UInt64>) -> [String: Any] {
        [
            "lowest_discernible_value": histogram.lowestDiscernibleValue,
            "highest_trackable_value": histogram.highestTrackableValue,
            "significant_digits": Int(histogram.numberOfSignificantValueDigits.rawValue),
            "total_count": histogram.totalCount,
            "buckets": histogram.buckets.map { [$0.valueUs, $0.count] },
        ]
    }
}

/// Compares the client's books with the mock's.
public struct ServerCheck: Sendable {
    /// The client's result.
    public let result: RunResult
    /// The server's counts.
    public let server: ServerCounts

    /// Creates a comparison.
    public init(result: RunResult, server: ServerCounts) {
        self.result = result
        self.server = server
    }

    /// Whether both sides agree on answered, accepted and rejected pushes, reason by reason.
    public var matches: Bool { differences.isEmpty }

    /// Each disagreement in words, empty when the books agree.
    public var differences: [String] {
        // The server saw the warmup too.
        var found: [String] = []
        let succeeded = result.counts.succeeded + result.warmupCounts.succeeded
        let answered = succeeded + result.counts.rejected + result.warmupCounts.rejected
        let rejectedByReason = result.rejectedByReason.merging(result.warmupRejectedByReason, uniquingKeysWith: +)
        if server.pushes != answered {
            found.append("server answered \(server.pushes), client saw \(answered) answers")
        }
        if server.accepted != succeeded {
            found.append("server accepted \(server.accepted), client counted \(succeeded) successes")
        }
        if server.rejectedByReason != rejectedByReason {
            found.append("rejections by reason differ: server \(server.rejectedByReason), client \(rejectedByReason)")
        }
        return found
    }
}
