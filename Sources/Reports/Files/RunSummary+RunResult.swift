import Basics
import Foundation
import Histogram
import LoadEngine
import Sampling
import Transport
import Workload

extension RunSummary {
    /// The summary of `result`, run as `context` says.
    public init(_ result: RunResult, context: RunContext) {
        let configuration = result.configuration
        schemaVersion = Self.currentSchemaVersion
        kind = .run
        runID = context.runID
        mode = result.mode.rawValue
        interrupted = result.interrupted
        startedAtUnixS = result.startedAtUnix
        durationS = result.durationSeconds
        counts = Counts(result.counts)
        accountingBalanced = result.counts.isBalanced
        rejectedByReason = result.rejectedByReason
        erroredByKind = result.erroredByKind
        erroredSamples = result.erroredSamples
        nothingSucceeded = result.nothingSucceeded
        throughputPerS = result.throughputPerSecond
        successesPerS = result.successesPerSecond
        latencyUs = Percentiles(result.latency)
        latencyHistogramUs = SerializedHistogram(result.latency)
        connections = result.perConnection.sorted { $0.key < $1.key }.map(Connection.init)
        shard = ShardEntry(result)
        timeseries = result.timeline.map(Interval.init)
        timeseriesResolutionS = result.timelineResolutionSeconds
        outages = result.outages.map {
            OutageEntry(fromS: $0.fromSeconds, toS: $0.toSeconds, errored: $0.errored, timedOut: $0.timedOut)
        }
        apnsIDMismatches = result.apnsIDMismatches
        engineCPUS = result.engineCPUSeconds
        engineCPUUsPerRequest = result.engineCPUMicrosPerRequest
        scheduleLagUs = configuration.pacing.isOpenLoop ? Percentiles(result.scheduleLag) : nil
        scheduleLagHistogramUs = SerializedHistogram(result.scheduleLag)
        skippedGoneTokens = result.skippedForGoneTokens
        startsNotSent = result.startsNotSent
        retries = Retries(result)
        warmup = Warmup(result)
        connectionAttempts = result.connectionAttempts
        gaveUpOnTarget = result.gaveUpOnTarget
        tookEveryEvent = result.tookEveryEvent
        let books = result.broadcasts
        broadcasts = Broadcasts(books)
        deviceReachUs = Percentiles(books.deviceReach)
        deviceReachHistogramUs = SerializedHistogram(books.deviceReach)
        cpuSamples = (try? context.cpuSampling?.get()).map(CPUSamples.init)
        channelRequests = ChannelRequests(result.channels)
        reconnections = result.recoveries?.reconnections
        resentRefused = result.recoveries?.resentRefused
        stageNsPerPush = GeneratorHealth.stageNanosPerPush(result)
        stageNsTotal = Dictionary(
            uniqueKeysWithValues: StageTimes.Stage.allCases.map { ($0.name, result.stageTimes.nanos[$0.rawValue]) }
        )
        generator = Generator(
            workerBusyShare: result.workerBusyShare,
            limitedBy: result.senderLimited ? "sender" : "target"
        )
        parameters = Parameters(configuration, context: context)
        machine = MachineDescription.current
        build = context.build
        serverCounts = context.serverCounts.map { ServerCountsEntry($0, result: result) }
    }

    /// The run the summary describes, restored: what `pushbench merge` adds up and renders.
    ///
    /// Everything a report shows comes back exactly (counts, histograms, the series with its
    /// per-second buckets, stage totals, the scenario as run). What a summary does not keep is
    /// left out: the real tokens a run addressed and the certificates it trusted.
    ///
    /// - Throws: `SummaryError` naming the value that cannot be used.
    public func runResult() throws(SummaryError) -> RunResult {
        guard let mode = RunResult.Mode(rawValue: mode) else { throw SummaryError("mode \(mode) is not known") }
        var result = RunResult(
            configuration: try configuration(),
            mode: mode,
            startedAtUnix: startedAtUnixS,
            durationSeconds: durationS,
            counts: counts.outcomeCounts,
            warmupCounts: warmup.counts.outcomeCounts,
            warmupRejectedByReason: warmup.rejectedByReason,
            latency: try latencyHistogramUs.histogram(),
            rejectedByReason: rejectedByReason,
            erroredByKind: erroredByKind,
            perConnection: Dictionary(
                connections.map { (RunResult.connectionKey(shard: $0.shard, localPort: $0.localPort), $0.answered) },
                uniquingKeysWith: +
            ),
            apnsIDMismatches: apnsIDMismatches,
            timeline: timeseries.map(\.sample),
            scheduleLag: try scheduleLagHistogramUs.histogram(),
            skippedForGoneTokens: skippedGoneTokens,
            startsNotSent: startsNotSent,
            retries: retryCounts,
            recoveries: recoveries,
            stageTimes: StageTimes(nanos: StageTimes.Stage.allCases.map { stageNsTotal[$0.name] ?? 0 }),
            engineCPUSeconds: engineCPUS,
            interrupted: interrupted
        )
        result.erroredSamples = erroredSamples ?? [:]
        result.connectionAttempts = connectionAttempts ?? 0
        result.gaveUpOnTarget = gaveUpOnTarget ?? false
        result.tookEveryEvent = tookEveryEvent ?? true
        result.shardGaps = shard.partial.map {
            RunResult.ShardGaps(count: $0.shards, missing: $0.missing, interrupted: $0.interrupted)
        }
        try restoreBroadcasts(into: &result)
        result.timelineResolutionSeconds = timeseriesResolutionS
        return result
    }

    /// What the run's retries did, restored.
    private var retryCounts: RetryCounts {
        var counts = RetryCounts()
        counts.attempts = retries.attempts.outcomeCounts
        counts.recovered = retries.recovered
        counts.exhausted = retries.exhausted
        return counts
    }

    /// The connections reopened and refused pushes resent, when the transport counted them.
    private var recoveries: TransportRecoveries? {
        reconnections.map {
            var recoveries = TransportRecoveries()
            recoveries.reconnections = $0
            recoveries.resentRefused = resentRefused ?? 0
            return recoveries
        }
    }

    /// The broadcasts, their reach and the channel requests, put back into `result`.
    private func restoreBroadcasts(into result: inout RunResult) throws(SummaryError) {
        if let broadcasts {
            result.broadcasts.counts = broadcasts.counts.outcomeCounts
            result.broadcasts.latency = try broadcasts.latencyHistogramUs.histogram()
            result.broadcasts.devicesReached = broadcasts.devicesReached
        }
        if let deviceReachHistogramUs {
            result.broadcasts.deviceReach = try deviceReachHistogramUs.histogram()
        }
        if let channelRequests {
            result.channels.created = channelRequests.created
            result.channels.deleted = channelRequests.deleted
            result.channels.failedByReason = channelRequests.failedByReason
            result.channels.latency = try channelRequests.latencyHistogramUs.histogram()
        }
    }

    /// Where and how the run happened, with the mock's count when one was compared.
    public var runContext: RunContext {
        RunContext(
            runID: runID,
            commandLine: parameters.commandLine,
            targetDescription: parameters.target,
            serverCounts: serverCounts.map {
                ServerCounts(
                    pushes: $0.pushes,
                    accepted: $0.accepted,
                    rejectedByReason: $0.rejectedByReason,
                    connections: $0.connections
                )
            },
            build: build
        )
    }

    private func configuration() throws(SummaryError) -> LoadConfiguration {
        let scenario: Scenario
        do {
            scenario = try Scenario(parsing: parameters.scenarioFile)
        } catch {
            throw SummaryError("parameters.scenario_file is not a scenario: \(error)")
        }
        do {
            var transport = TransportConfiguration(
                origin: parameters.origin,
                connections: parameters.connections,
                streamsPerConnection: parameters.streamsPerConnection,
                requestTimeout: .milliseconds(parameters.requestTimeoutMs),
                verifyPeer: parameters.tlsVerifyPeer
            )
            if let connectTimeout = parameters.connectTimeoutMs {
                transport.connectTimeout = .milliseconds(connectTimeout)
            }
            if let pingInterval = parameters.pingIntervalMs { transport.pingInterval = .milliseconds(pingInterval) }
            var configuration = LoadConfiguration(
                transport: transport,
                transportKind: try known(parameters.transport, "parameters.transport", TransportKind.init),
                scenario: scenario,
                requests: parameters.requestsCap,
                duration: parameters.durationCapS.map { .seconds($0) },
                warmup: .seconds(warmup.seconds),
                pacing: try parameters.pacing.pacing(),
                threads: parameters.threads,
                bundleID: parameters.bundleID,
                priorityOverride: parameters.priorityOverride,
                expirationSeconds: parameters.expirationS,
                tokenPolicy: try known(parameters.jwtMode, "parameters.jwt_mode", ProviderTokenPolicy.init),
                retryPolicy: RetryPolicy(maxRetries: retries.maxPerPush, base: .milliseconds(retries.backoffBaseMs)),
                reconnectBackoff: ReconnectBackoff(
                    base: .milliseconds(parameters.reconnectBackoffMs ?? 100),
                    cap: .milliseconds(parameters.reconnectBackoffMaxMs ?? 5000)
                ),
                shard: try Shard(index: shard.index, count: shard.count)
            )
            configuration.startAtUnix = parameters.startAtUnixS
            return configuration
        } catch let error as SummaryError {
            throw error
        } catch {
            throw SummaryError("\(error)")
        }
    }
}

extension RunSummary.Parameters {
    /// How `configuration` ran, as `context` started it.
    init(_ configuration: LoadConfiguration, context: RunContext) {
        self.init(
            commandLine: context.commandLine,
            target: context.targetDescription,
            origin: configuration.transport.origin,
            scenario: configuration.scenario.name,
            scenarioFile: configuration.scenario.yaml,
            activities: configuration.scenario.activities,
            seed: configuration.scenario.seed,
            pacing: RunSummary.PacingEntry(configuration.pacing),
            requestsCap: configuration.requests,
            durationCapS: configuration.duration?.inSeconds,
            threads: configuration.threads,
            transport: configuration.transportKind.rawValue,
            connections: configuration.transport.connections,
            streamsPerConnection: configuration.transport.streamsPerConnection,
            requestTimeoutMs: configuration.transport.requestTimeout.inMilliseconds,
            connectTimeoutMs: configuration.transport.connectTimeout.inMilliseconds,
            pingIntervalMs: configuration.transport.pingInterval.inMilliseconds,
            reconnectBackoffMs: configuration.reconnectBackoff.base.inSeconds * 1000,
            reconnectBackoffMaxMs: configuration.reconnectBackoff.cap.inSeconds * 1000,
            bundleID: configuration.bundleID,
            topic: configuration.topic,
            priorityOverride: configuration.priorityOverride,
            expirationS: configuration.expirationSeconds,
            jwtMode: configuration.tokenPolicy.rawValue,
            tlsVerifyPeer: configuration.transport.verifyPeer,
            practices: configuration.practices.isEmpty ? nil : configuration.practices.map(\.description),
            startAtUnixS: configuration.startAtUnix
        )
    }
}

extension RunSummary.Connection {
    /// A connection's answered requests, by its key in `RunResult.perConnection`.
    init(_ entry: (key: Int, value: Int)) {
        let connection = RunResult.connection(ofKey: entry.key)
        self.init(shard: connection.shard, localPort: connection.localPort, answered: entry.value)
    }
}

extension RunSummary.ShardEntry {
    /// Which shard `result` was, and what of the others is missing when it is a merge.
    init(_ result: RunResult) {
        self.init(
            index: result.configuration.shard.index,
            count: result.configuration.shard.count,
            partial: result.shardGaps.map {
                Partial(shards: $0.count, missing: $0.missing, interrupted: $0.interrupted)
            }
        )
    }
}

extension RunSummary.Retries {
    /// `result`'s retry policy and what it did.
    init(_ result: RunResult) {
        self.init(
            maxPerPush: result.configuration.retryPolicy.maxRetries,
            backoffBaseMs: result.configuration.retryPolicy.base.inSeconds * 1000,
            attempts: RunSummary.Counts(result.retries.attempts),
            recovered: result.retries.recovered,
            exhausted: result.retries.exhausted
        )
    }
}

extension RunSummary.Warmup {
    /// `result`'s warmup and the pushes kept out of its figures.
    init(_ result: RunResult) {
        self.init(
            seconds: result.configuration.warmup.inSeconds,
            rejectedByReason: result.warmupRejectedByReason,
            counts: RunSummary.Counts(result.warmupCounts)
        )
    }
}

extension RunSummary.ServerCountsEntry {
    /// The mock's own count, and whether `result`'s agrees with it.
    init(_ server: ServerCounts, result: RunResult) {
        self.init(
            pushes: server.pushes,
            accepted: server.accepted,
            rejectedByReason: server.rejectedByReason,
            connections: server.connections,
            matchesClient: ServerCheck(result: result, server: server).matches
        )
    }
}

extension RunSummary.Broadcasts {
    /// The broadcasts among a run's requests, or `nil` when it sent none.
    init?(_ books: BroadcastBooks) {
        guard books.counts.sent > 0 else { return nil }
        self.init(
            counts: RunSummary.Counts(books.counts),
            latencyUs: RunSummary.Percentiles(books.latency),
            latencyHistogramUs: RunSummary.SerializedHistogram(books.latency),
            devicesReached: books.devicesReached
        )
    }
}

extension RunSummary.ChannelRequests {
    /// A run's channel management requests, or `nil` when it made none.
    init?(_ channels: ChannelBooks) {
        guard channels.requests > 0 else { return nil }
        self.init(
            created: channels.created,
            deleted: channels.deleted,
            failedByReason: channels.failedByReason,
            latencyUs: RunSummary.Percentiles(channels.latency),
            latencyHistogramUs: RunSummary.SerializedHistogram(channels.latency)
        )
    }
}

/// `raw` as one of `T`'s values, or an error naming `key`.
private func known<T>(_ raw: String, _ key: String, _ make: (String) -> T?) throws(SummaryError) -> T {
    guard let value = make(raw) else { throw SummaryError("\(key) is not a known value: \(raw)") }
    return value
}

extension RunSummary.Counts {
    init(_ counts: OutcomeCounts) {
        self.init(
            sent: counts.sent,
            succeeded: counts.succeeded,
            rejected: counts.rejected,
            errored: counts.errored,
            timedOut: counts.timedOut,
            answersUnsent: counts.answersUnsent > 0 ? counts.answersUnsent : nil
        )
    }

    var outcomeCounts: OutcomeCounts {
        var counts = OutcomeCounts()
        counts.sent = sent
        counts.succeeded = succeeded
        counts.rejected = rejected
        counts.errored = errored
        counts.timedOut = timedOut
        counts.answersUnsent = answersUnsent ?? 0
        return counts
    }
}

extension RunSummary.Percentiles {
    /// The percentiles of `histogram`; all 0 when it is empty.
    init(_ histogram: Histogram<UInt64>) {
        guard histogram.totalCount > 0 else {
            self.init(p50: 0, p90: 0, p95: 0, p99: 0, p99_9: 0, max: 0)
            return
        }
        self.init(
            p50: histogram.valueAtPercentile(50),
            p90: histogram.valueAtPercentile(90),
            p95: histogram.valueAtPercentile(95),
            p99: histogram.valueAtPercentile(99),
            p99_9: histogram.valueAtPercentile(99.9),
            max: histogram.max
        )
    }
}

extension RunSummary.SerializedHistogram {
    init(_ histogram: Histogram<UInt64>) {
        self.init(
            lowestDiscernibleValue: histogram.lowestDiscernibleValue,
            highestTrackableValue: histogram.highestTrackableValue,
            significantDigits: Int(histogram.numberOfSignificantValueDigits.rawValue),
            totalCount: histogram.totalCount,
            buckets: histogram.buckets.map { [$0.valueUs, $0.count] }
        )
    }

    func histogram() throws(SummaryError) -> Histogram<UInt64> {
        guard let digits = SignificantDigits(rawValue: Int8(clamping: significantDigits)) else {
            throw SummaryError("a histogram's significant_digits is not 1 to 5: \(significantDigits)")
        }
        return Histogram.latency(digits: digits, buckets: try RunSummary.latencyBuckets(buckets))
    }
}

extension RunSummary.Interval {
    init(_ sample: TimelineSample) {
        self.init(
            startS: sample.startSeconds,
            intervalS: sample.intervalSeconds,
            counts: RunSummary.Counts(sample.counts),
            p50Us: sample.p50Us,
            p99Us: sample.p99Us,
            maxUs: sample.maxUs,
            latencyBucketsUs: sample.latencyBuckets.map { [$0.valueUs, $0.count] }
        )
    }

    var sample: TimelineSample {
        var sample = TimelineSample(startSeconds: startS, intervalSeconds: intervalS)
        sample.counts = counts.outcomeCounts
        sample.p50Us = p50Us
        sample.p99Us = p99Us
        sample.maxUs = maxUs
        sample.latencyBuckets = latencyBucketsUs.compactMap {
            $0.count == 2 ? LatencyBucket(valueUs: $0[0], count: $0[1]) : nil
        }
        return sample
    }
}

extension RunSummary {
    /// `[value_us, count]` pairs as buckets.
    static func latencyBuckets(_ pairs: [[UInt64]]) throws(SummaryError) -> [LatencyBucket] {
        guard pairs.allSatisfy({ $0.count == 2 }) else {
            throw SummaryError("a histogram's buckets are not [value_us, count] pairs")
        }
        return pairs.map { LatencyBucket(valueUs: $0[0], count: $0[1]) }
    }
}

extension RunSummary.PacingEntry {
    init(_ pacing: Pacing) {
        switch pacing {
        case .closedLoop: self.init(kind: "closed_loop")
        case .rate(let profile) where profile.points.count == 1:
            self.init(kind: "constant_rate", ratePerS: profile.points[0].perSecond)
        case .rate(let profile):
            self.init(kind: "rate_profile", points: profile.points.map { [$0.seconds, $0.perSecond] })
        case .scenarioTime(let scale): self.init(kind: "scenario_time", timeScale: scale)
        case .burst(let kind): self.init(kind: "burst", event: kind.rawValue)
        }
    }

    func pacing() throws -> Pacing {
        switch kind {
        case "closed_loop": return .closedLoop
        case "constant_rate" where ratePerS != nil: return try .constantRate(perSecond: ratePerS!)
        case "rate_profile" where points?.allSatisfy({ $0.count == 2 }) == true:
            return .rate(try RateProfile(points: points!.map { ($0[0], $0[1]) }))
        case "scenario_time" where timeScale != nil: return .scenarioTime(scale: timeScale!)
        case "burst":
            guard let event, let kind = EventKind(rawValue: event) else {
                throw SummaryError("parameters.pacing.event is not a known event kind")
            }
            return .burst(kind)
        default: throw SummaryError("parameters.pacing is not a known pacing: \(kind)")
        }
    }
}
