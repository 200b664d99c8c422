import Basics
import Dispatch
import Synchronization
import Transport
import Wire
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// Sends a scenario's pushes from `threads` Dispatch workers and measures what happens.
///
/// Each worker (`LoadWorker`) owns a transport client, its share of the connections and a
/// contiguous share of the activities, so every activity's pushes leave in order from one
/// worker. The calling thread only waits, reports progress four times a second (from
/// `LiveMetrics`, which a metrics endpoint reads too), and adds the workers' metrics up at the end. The end of `--duration` or a stop request (Ctrl-C, SIGTERM)
/// ends submission; requests in flight get `LoadWorker.drainNanos` to finish and are then
/// counted as timed out, so the books balance and the stop is bounded.
public enum LoadTest {
    private static let progressIntervalNanos: UInt64 = 250_000_000

    /// Runs `configuration`, signing with `tokens` (or, with the `perRequest` policy, with its
    /// key for every push), until every push has ended or `stop` is set.
    ///
    /// - Parameters:
    ///   - live: where the run's figures can be read while it runs (a metrics endpoint's); it
    ///     starts when the schedule does, after any `startAtUnix` wait.
    ///   - progress: called on this thread about every 250 ms with the run's state.
    ///   - onAccepted: called for every push answered 200, on its worker's thread; one worker's
    ///     calls come in answer order, different workers' concurrently. Each says how far its
    ///     worker's events have all ended, so a caller can put them back in scenario order.
    ///   - makeTransport: makes each worker's client for its share of the connections; by default
    ///     the configuration's `transportKind`. Tests hand in a fake to drive the engine without
    ///     sockets.
    /// - Throws: `TransportError` when the transport cannot be set up, or a scenario or payload error.
    public static func run(
        _ configuration: LoadConfiguration,
        tokens: ProviderTokenCache,
        stop: StopFlag = StopFlag(),
        live: LiveMetrics = LiveMetrics(),
        progress: (ProgressSnapshot) -> Void = { _ in },
        onAccepted: @escaping @Sendable (AcceptedPush) -> Void = { _ in },
        makeTransport: (@Sendable (TransportConfiguration) throws -> any PushTransport)? = nil
    ) throws -> RunResult {
        let threads = configuration.threads
        guard threads > 0, configuration.transport.connections >= threads else {
            throw TransportError.setup(
                "\(threads) workers need at least as many connections, not \(configuration.transport.connections)"
            )
        }
        let timeline = RunTimeline(workers: threads, keepsLatencyBuckets: configuration.shard.count > 1)
        let abort = StopFlag()
        if let startAt = configuration.startAtUnix { wait(until: startAt, on: configuration.wallClock, stop: stop) }
        live.begin(workers: threads)
        let startedAtUnix = configuration.wallClock.now()
        let start = monotonicNanos()
        let workers = try makeWorkers(
            configuration,
            clock: (start, startedAtUnix),
            tokens: tokens,
            flags: (stop, abort),
            timeline: timeline,
            live: live
        )
        let kind = configuration.transportKind
        let makeTransport = makeTransport ?? { try kind.makeClient($0) }
        let outcomes = Mutex<[Int: Result<LoadWorker.Outcome, Error>]>([:])
        let group = DispatchGroup()
        for worker in workers {
            DispatchQueue(label: "pushbench.worker.\(worker.index)").async(group: group) {
                let outcome = WorkerThreadName.whileRunning(worker: worker.index) {
                    Result { try worker.run(makeTransport: makeTransport, onAccepted: onAccepted) }
                }
                if case .failure = outcome { abort.set() }
                outcomes.withLock { $0[worker.index] = outcome }
            }
        }
        reportProgress(until: group, live: live, timeline: timeline, start: start, configuration.requests, progress)
        let end = monotonicNanos()
        var total = try outcomes.withLock { $0[0]! }.get()
        for index in 1..<threads { total.add(try outcomes.withLock { $0[index]! }.get()) }
        return result(
            of: total,
            configuration: configuration,
            startedAtUnix: startedAtUnix,
            seconds: Double(end - start) / 1e9,
            timeline: timeline.samples,
            interrupted: stop.isSet
        )
    }

    /// One worker per thread, each with its share of the activities, requests and rate.
    private static func makeWorkers(
        _ configuration: LoadConfiguration,
        clock: (start: UInt64, startedAtUnix: Double),
        tokens: ProviderTokenCache,
        flags: (stop: StopFlag, abort: StopFlag),
        timeline: RunTimeline,
        live: LiveMetrics
    ) throws -> [LoadWorker] {
        let threads = configuration.threads
        var firstEvents = try ScenarioStream(configuration.scenario)
        let firstEventMs = firstEvents.next()?.timeMs ?? 0
        var workerProfile: RateProfile? = nil
        if case .rate(let profile) = configuration.pacing {
            workerProfile = profile.scaled(by: 1 / Double(threads * configuration.shard.count))
        }
        let shares = configuration.workerActivities
        return (0..<threads).map { index in
            LoadWorker(
                index: index,
                configuration: configuration,
                activities: shares[index],
                requestCap: configuration.shardRequests.map { LoadWorker.share(of: $0, worker: index, of: threads) }
                    ?? .max,
                rateProfile: workerProfile,
                startNanos: clock.start,
                startedAtUnix: clock.startedAtUnix,
                firstEventMs: firstEventMs,
                tokens: tokens,
                stop: flags.stop,
                abort: flags.abort,
                timeline: timeline,
                live: live
            )
        }
    }

    /// Calls `progress` every 250 ms with the live figures until the workers in `group` are done.
    private static func reportProgress(
        until group: DispatchGroup,
        live: LiveMetrics,
        timeline: RunTimeline,
        start: UInt64,
        _ total: Int?,
        _ progress: (ProgressSnapshot) -> Void
    ) {
        var completedAtLastProgress = 0
        var lastProgress = start
        while group.wait(timeout: .now() + .nanoseconds(Int(progressIntervalNanos))) == .timedOut {
            let snapshot = live.read()
            var counts = snapshot.counts
            counts.add(snapshot.warmup)
            let now = monotonicNanos()
            let recent = timeline.recentPercentiles
            progress(
                ProgressSnapshot(
                    elapsedSeconds: Double(now - start) / 1e9,
                    total: total,
                    counts: counts,
                    recentRatePerSecond: Double(counts.completed - completedAtLastProgress) * 1e9
                        / Double(now - lastProgress),
                    p50Us: recent?.p50Us ?? 0,
                    p99Us: recent?.p99Us ?? 0
                )
            )
            completedAtLastProgress = counts.completed
            lastProgress = now
        }
    }

    /// The run's result from the workers' outcomes added up, over `seconds` of the run (the
    /// warmup's are left out of its duration).
    private static func result(
        of total: LoadWorker.Outcome,
        configuration: LoadConfiguration,
        startedAtUnix: Double,
        seconds: Double,
        timeline series: (samples: [TimelineSample], resolutionSeconds: Double),
        interrupted: Bool
    ) -> RunResult {
        var result = RunResult(
            configuration: configuration,
            mode: configuration.pacing.isOpenLoop ? .openLoop : .closedLoop,
            startedAtUnix: startedAtUnix,
            durationSeconds: max(0, seconds - configuration.warmup.inSeconds),
            counts: total.metrics.counts,
            warmupCounts: total.metrics.warmup,
            warmupRejectedByReason: total.metrics.warmupRejectedByReason,
            latency: total.metrics.latency,
            rejectedByReason: total.metrics.rejectedByReason,
            erroredByKind: total.metrics.erroredByKind,
            perConnection: Dictionary(
                uniqueKeysWithValues: total.metrics.perConnection.map {
                    (RunResult.connectionKey(shard: configuration.shard.index, localPort: $0.key), $0.value)
                }
            ),
            apnsIDMismatches: total.metrics.apnsIDMismatches,
            timeline: series.samples,
            scheduleLag: total.metrics.scheduleLag,
            skippedForGoneTokens: total.skippedForGoneTokens,
            startsNotSent: total.startsNotSent,
            retries: total.retries,
            recoveries: total.recoveries,
            stageTimes: total.stages,
            engineCPUSeconds: total.cpuSeconds,
            interrupted: interrupted
        )
        result.erroredSamples = total.metrics.erroredSamples
        result.connectionAttempts = total.connectionAttempts
        result.gaveUpOnTarget = total.gaveUp
        result.tookEveryEvent = total.tookEveryEvent
        result.broadcasts = total.metrics.broadcasts
        result.timelineResolutionSeconds = series.resolutionSeconds
        return result
    }
}

extension LoadWorker.Outcome {
    /// Adds another worker's outcome to this one.
    fileprivate mutating func add(_ other: Self) {
        metrics.add(other.metrics)
        skippedForGoneTokens += other.skippedForGoneTokens
        startsNotSent += other.startsNotSent
        stages.add(other.stages)
        retries.add(other.retries)
        if let recoveries = other.recoveries { self.recoveries?.add(recoveries) }
        connectionAttempts += other.connectionAttempts
        gaveUp = gaveUp || other.gaveUp
        tookEveryEvent = tookEveryEvent && other.tookEveryEvent
        cpuSeconds += other.cpuSeconds
    }
}

/// Wall-clock now, UNIX seconds.
func unixNow() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// CPU time (user + system) of the calling thread, seconds.
func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
