import Dispatch
import Transport
import Wire
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// Sends a run's pushes through one libcurl multi handle and measures what happens.
///
/// The whole engine is this loop, on the calling thread: fill every free stream with the next
/// push, let libcurl move bytes, record each completion, report progress four times a second,
/// and stop when every push has ended. A stop request (Ctrl-C) ends submission; requests in
/// flight get `drainSeconds` to finish and are then counted as timed out, so the books balance.
public enum LoadEngine {
    /// How long an interrupted run waits for requests in flight.
    public static let drainSeconds: UInt64 = 2
    private static let progressIntervalNanos: UInt64 = 250_000_000

    /// Runs `configuration`, signing with `tokens` (or, with the `perRequest` policy, with its
    /// key for every push), until every push has ended or `stop` is set.
    ///
    /// - Parameters:
    ///   - progress: called on this thread about every 250 ms with the run's state.
    ///   - onAccepted: called on this thread for every push answered 200, in answer order.
    /// - Throws: `TransportError` when libcurl cannot be set up, or a payload error.
    public static func run(
        _ configuration: LoadConfiguration,
        tokens: ProviderTokenCache,
        stop: StopFlag = StopFlag(),
        progress: (ProgressSnapshot) -> Void = { _ in },
        onAccepted: (AcceptedPush) -> Void = { _ in }
    ) throws -> RunResult {
        let client = try HTTP2PushClient(configuration: configuration.transport)
        var source = LiveActivityPushSource(seed: configuration.seed, count: configuration.requests)
        // apns-id bits: seeded once from the system, then no syscall per request (the system
        // generator costs a getrandom(2) per call). SplitMix64's outputs do not repeat within 2^64.
        var system = SystemRandomNumberGenerator()
        var idBits = SplitMix64(seed: system.next())
        let startedAtUnix = unixNow()
        let expiration = Int64(startedAtUnix) + configuration.expirationSeconds
        var reader = ProviderTokenCache.Reader(tokens)
        let signer = try ES256Signer(key: tokens.key)
        var bearer = try reader.token(now: Int64(startedAtUnix))
        var headers = headerBlock(configuration, bearer: bearer, expiration: expiration)
        var path: [UInt8] = []

        let cpuAtStart = threadCPUSeconds()
        let start = monotonicNanos()
        var metrics = RunMetrics(startNanos: start)
        var next = 0
        var nextProgress = start + progressIntervalNanos
        var nextTokenCheck = start + 1_000_000_000
        var completedAtLastProgress = 0
        var drainDeadline: UInt64? = nil
        var interrupted = false

        while true {
            var now = monotonicNanos()
            if stop.isSet && drainDeadline == nil {
                interrupted = true
                drainDeadline = now + drainSeconds * 1_000_000_000
            }
            if now >= nextTokenCheck {
                nextTokenCheck = now + 1_000_000_000
                let current = try reader.token(now: Int64(unixNow()))
                if current != bearer && configuration.tokenPolicy == .cached {
                    bearer = current
                    headers = headerBlock(configuration, bearer: bearer, expiration: expiration)
                }
            }
            while drainDeadline == nil && next < configuration.requests && client.idleSlots > 0 {
                let intendedAt = configuration.ratePerSecond.map { start + UInt64(Double(next) * 1e9 / $0) }
                if let intendedAt, intendedAt > monotonicNanos() { break }
                let unixSeconds = Int64(unixNow())
                let body = try source.prepare(index: next, now: unixSeconds, path: &path)
                if configuration.tokenPolicy == .perRequest {
                    let token = try ProviderToken.sign(
                        keyID: tokens.keyID,
                        teamID: tokens.teamID,
                        issuedAt: unixSeconds,
                        with: signer
                    )
                    headers = headerBlock(configuration, bearer: token, expiration: expiration)
                }
                now = monotonicNanos()
                try client.submit(
                    tag: next,
                    intendedAt: intendedAt ?? now,
                    path: path,
                    apnsID: (idBits.next(), idBits.next()),
                    headers: headers,
                    body: body
                )
                metrics.recordSent(now: now, intendedAt: intendedAt ?? now)
                next += 1
            }
            if client.inFlight == 0 && (next >= configuration.requests || drainDeadline != nil) { break }
            if let deadline = drainDeadline, now >= deadline {
                metrics.recordAbandoned(client.inFlight, now: now)
                break
            }
            client.step(timeoutMs: waitMs(configuration, next: next, start: start, slotsFree: client.idleSlots > 0)) {
                completion in
                let answeredAt = monotonicNanos()
                metrics.record(completion, now: answeredAt)
                if case .response(200, _) = completion.outcome {
                    onAccepted(
                        AcceptedPush(
                            tag: completion.tag,
                            intendedAtNanos: completion.intendedAt,
                            answeredAtNanos: answeredAt
                        )
                    )
                }
            }
            now = monotonicNanos()
            if now >= nextProgress {
                let completed = metrics.counts.completed
                let interval = Double(now - nextProgress + progressIntervalNanos) / 1e9
                progress(
                    ProgressSnapshot(
                        elapsedSeconds: metrics.elapsedSeconds(now: now),
                        total: configuration.requests,
                        counts: metrics.counts,
                        recentRatePerSecond: Double(completed - completedAtLastProgress) / interval,
                        p50Us: metrics.latency.valueAtPercentile(50),
                        p99Us: metrics.latency.valueAtPercentile(99)
                    )
                )
                completedAtLastProgress = completed
                nextProgress = now + progressIntervalNanos
            }
        }
        let end = monotonicNanos()
        metrics.finish(now: end)
        return RunResult(
            configuration: configuration,
            mode: configuration.ratePerSecond == nil ? .closedLoop : .openLoop,
            startedAtUnix: startedAtUnix,
            durationSeconds: metrics.elapsedSeconds(now: end),
            counts: metrics.counts,
            latency: metrics.latency,
            rejectedByReason: metrics.rejectedByReason,
            erroredByKind: metrics.erroredByKind,
            perConnection: metrics.perConnection,
            apnsIDMismatches: metrics.apnsIDMismatches,
            timeline: metrics.timeline,
            scheduleLag: metrics.scheduleLag,
            engineCPUSeconds: threadCPUSeconds() - cpuAtStart,
            interrupted: interrupted
        )
    }

    /// How long libcurl may wait for traffic: 20 ms, or less when an open-loop push is due
    /// sooner and a stream is free to send it.
    private static func waitMs(_ configuration: LoadConfiguration, next: Int, start: UInt64, slotsFree: Bool) -> Int32 {
        guard let rate = configuration.ratePerSecond, slotsFree, next < configuration.requests else { return 20 }
        let due = start + UInt64(Double(next) * 1e9 / rate)
        let now = monotonicNanos()
        return due <= now ? 0 : Int32(min(20, (due - now) / 1_000_000))
    }

    /// The headers every push of the run shares; rebuilt only when the provider token changes.
    private static func headerBlock(
        _ configuration: LoadConfiguration,
        bearer: ProviderToken,
        expiration: Int64
    )
        -> HeaderBlock
    {
        HeaderBlock(lines: [
            "authorization: \(bearer.authorization)",
            "apns-push-type: \(PushType.liveactivity.rawValue)",
            "apns-topic: \(configuration.topic)",
            "apns-priority: \(configuration.priority)",
            "apns-expiration: \(expiration)",
            "content-type: application/json",
        ])
    }
}

/// A monotonic clock reading in nanoseconds.
func monotonicNanos() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
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
