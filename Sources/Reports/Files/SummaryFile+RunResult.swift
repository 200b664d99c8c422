import Foundation
import Histogram
import LoadEngine
import Transport
import Workload

extension SummaryFile {
    /// The run the summary describes, restored: what `pushbench merge` adds up and renders.
    ///
    /// Everything a report shows comes back exactly (counts, histograms, the series with its
    /// per-second buckets, stage totals, the scenario as run). What a summary does not keep is
    /// left out: the real tokens a run addressed and the certificates it trusted.
    ///
    /// - Throws: `SummaryError` naming the key that is missing or malformed.
    public func runResult() throws(SummaryError) -> RunResult {
        var result = RunResult(
            configuration: try configuration(),
            mode: try choice("mode", RunResult.Mode.init(rawValue:)),
            startedAtUnix: try number("started_at_unix_s"),
            durationSeconds: try number("duration_s"),
            counts: try counts("counts"),
            warmupCounts: try counts("warmup.counts"),
            warmupRejectedByReason: try tally("warmup.rejected_by_reason"),
            latency: try histogram("latency_histogram_us"),
            rejectedByReason: try tally("rejected_by_reason"),
            erroredByKind: try tally("errored_by_kind"),
            perConnection: try connections(),
            apnsIDMismatches: try integer("apns_id_mismatches"),
            timeline: try timeline(),
            scheduleLag: try histogram("schedule_lag_histogram_us"),
            skippedForGoneTokens: try integer("skipped_gone_tokens"),
            startsNotSent: try integer("starts_not_sent"),
            retries: try retries(),
            recoveries: try recoveries(),
            stageTimes: try stageTimes(),
            engineCPUSeconds: try number("engine_cpu_s"),
            interrupted: try flag("interrupted")
        )
        result.erroredSamples = value("errored_samples") as? [String: String] ?? [:]
        return result
    }

    /// Where and how the run happened, with the mock's count when one was compared.
    public func runContext() throws(SummaryError) -> RunContext {
        var serverCounts: ServerCounts? = nil
        if value("server_counts") != nil {
            serverCounts = ServerCounts(
                pushes: try integer("server_counts.pushes"),
                accepted: try integer("server_counts.accepted"),
                rejectedByReason: try tally("server_counts.rejected_by_reason"),
                connections: try integer("server_counts.connections")
            )
        }
        return RunContext(
            runID: try text("run_id"),
            commandLine: try text("parameters.command_line"),
            targetDescription: try text("parameters.target"),
            serverCounts: serverCounts
        )
    }

    private func configuration() throws(SummaryError) -> LoadConfiguration {
        let scenario: Scenario
        do {
            scenario = try Scenario(parsing: try text("parameters.scenario_file"))
        } catch {
            throw SummaryError("\(path): parameters.scenario_file is not a scenario: \(error)")
        }
        let shard: Shard
        do {
            shard = try Shard(index: try integer("shard.index"), count: try integer("shard.count"))
        } catch let error as SummaryError {
            throw error
        } catch {
            throw SummaryError("\(path): shard: \(error)")
        }
        return LoadConfiguration(
            transport: .init(
                origin: try text("parameters.origin"),
                connections: try integer("parameters.connections"),
                streamsPerConnection: try integer("parameters.streams_per_connection"),
                requestTimeoutMs: try integer("parameters.request_timeout_ms"),
                verifyPeer: try flag("parameters.tls_verify_peer")
            ),
            transportKind: try choice("parameters.transport", TransportKind.init(rawValue:)),
            scenario: scenario,
            requests: optionalInteger("parameters.requests_cap"),
            durationSeconds: value("parameters.duration_cap_s") == nil ? nil : try number("parameters.duration_cap_s"),
            warmupSeconds: try number("warmup.seconds"),
            pacing: try pacing(),
            threads: try integer("parameters.threads"),
            bundleID: try text("parameters.bundle_id"),
            priorityOverride: optionalInteger("parameters.priority_override"),
            expirationSeconds: Int64(try integer("parameters.expiration_s")),
            tokenPolicy: try choice("parameters.jwt_mode", ProviderTokenPolicy.init(rawValue:)),
            retryPolicy: RetryPolicy(
                maxRetries: try integer("retries.max_per_push"),
                baseSeconds: try number("retries.backoff_base_ms") / 1000
            ),
            shard: shard
        )
    }

    private func pacing() throws(SummaryError) -> Pacing {
        let kind = try text("parameters.pacing.kind")
        do {
            switch kind {
            case "closed_loop": return .closedLoop
            case "constant_rate": return try .constantRate(perSecond: try number("parameters.pacing.rate_per_s"))
            case "rate_profile":
                guard let points = value("parameters.pacing.points") as? [[Double]],
                    points.allSatisfy({ $0.count == 2 })
                else { throw missing("parameters.pacing.points", "a list of [seconds, rate] pairs") }
                return .rate(try RateProfile(points: points.map { ($0[0], $0[1]) }))
            case "scenario_time": return .scenarioTime(scale: try number("parameters.pacing.time_scale"))
            case "burst": return .burst(try choice("parameters.pacing.event", EventKind.init(rawValue:)))
            default: throw missing("parameters.pacing.kind", "a known pacing")
            }
        } catch let error as SummaryError {
            throw error
        } catch {
            throw SummaryError("\(path): parameters.pacing: \(error)")
        }
    }

    private func counts(_ keyPath: String) throws(SummaryError) -> OutcomeCounts {
        var counts = OutcomeCounts()
        counts.sent = try integer(keyPath + ".sent")
        counts.succeeded = try integer(keyPath + ".succeeded")
        counts.rejected = try integer(keyPath + ".rejected")
        counts.errored = try integer(keyPath + ".errored")
        counts.timedOut = try integer(keyPath + ".timed_out")
        return counts
    }

    private func buckets(_ keyPath: String) throws(SummaryError) -> [LatencyBucket] {
        guard let pairs = value(keyPath) as? [[UInt64]], pairs.allSatisfy({ $0.count == 2 }) else {
            throw missing(keyPath, "a list of [value_us, count] pairs")
        }
        return pairs.map { LatencyBucket(valueUs: $0[0], count: $0[1]) }
    }

    private func histogram(_ keyPath: String) throws(SummaryError) -> Histogram<UInt64> {
        let digits = try choice(keyPath + ".significant_digits") { (raw: Int) in
            SignificantDigits(rawValue: Int8(clamping: raw))
        }
        return Histogram.latency(digits: digits, buckets: try buckets(keyPath + ".buckets"))
    }

    private func connections() throws(SummaryError) -> [Int: Int] {
        guard let entries = value("connections") as? [[String: Int]] else {
            throw missing("connections", "a list of {shard, local_port, answered}")
        }
        var perConnection: [Int: Int] = [:]
        for entry in entries {
            guard let port = entry["local_port"], let answered = entry["answered"] else {
                throw missing("connections", "a list of {shard, local_port, answered}")
            }
            perConnection[RunResult.connectionKey(shard: entry["shard"] ?? 0, localPort: port)] = answered
        }
        return perConnection
    }

    private func timeline() throws(SummaryError) -> [SecondSample] {
        guard let entries = value("timeseries") as? [[String: Any]] else {
            throw missing("timeseries", "a list of seconds")
        }
        var samples: [SecondSample] = []
        for (index, object) in entries.enumerated() {
            let entry = SummaryFile(part: object, path: "\(path): timeseries[\(index)]")
            var sample = SecondSample(second: try entry.integer("second"))
            sample.intervalSeconds = try entry.number("interval_s")
            sample.counts = try entry.counts("counts")
            sample.p50Us = UInt64(try entry.integer("p50_us"))
            sample.p99Us = UInt64(try entry.integer("p99_us"))
            sample.maxUs = UInt64(try entry.integer("max_us"))
            sample.latencyBuckets = try entry.buckets("latency_buckets_us")
            samples.append(sample)
        }
        return samples
    }

    private func retries() throws(SummaryError) -> RetryCounts {
        var retries = RetryCounts()
        retries.attempts = try counts("retries.attempts")
        retries.recovered = try integer("retries.recovered")
        retries.exhausted = try integer("retries.exhausted")
        return retries
    }

    private func recoveries() throws(SummaryError) -> TransportRecoveries? {
        guard value("reconnections") != nil else { return nil }
        var recoveries = TransportRecoveries()
        recoveries.reconnections = try integer("reconnections")
        recoveries.resentRefused = try integer("resent_refused")
        return recoveries
    }

    private func stageTimes() throws(SummaryError) -> StageTimes {
        var nanos: [UInt64] = []
        for stage in StageTimes.Stage.allCases {
            nanos.append(UInt64(try number("stage_ns_total." + stage.name)))
        }
        return StageTimes(nanos: nanos)
    }

    private func optionalInteger(_ keyPath: String) -> Int? {
        (value(keyPath) as? NSNumber)?.intValue
    }

    /// The value at `keyPath` turned into a `T` by `make` (an enum's raw value).
    private func choice<Raw, T>(_ keyPath: String, _ make: (Raw) -> T?) throws(SummaryError) -> T {
        guard let raw = value(keyPath) as? Raw, let chosen = make(raw) else { throw missing(keyPath, "a known value") }
        return chosen
    }
}
