import Transport
import Wire
import Workload

/// One Dispatch worker of a run: its own transport client and connections, its own share of
/// the scenario's activities, its own metrics.
///
/// The worker is this loop: fill every free stream with the next push that is due, let the client
/// move bytes, record each completion, publish its totals four times a second, and stop when its
/// share is sent and answered. Nothing is shared with other workers but the provider token
/// cache, the stop flags and the run's timeline.
struct LoadWorker: Sendable {
    /// What the worker hands back when it is done.
    struct Outcome: Sendable {
        var metrics: RunMetrics
        var skippedForGoneTokens: Int
        var startsNotSent: Int
        var stages: StageTimes
        var retries: RetryCounts
        var recoveries: TransportRecoveries?
        var cpuSeconds: Double
    }

    /// The worker's number, `0..<threads`.
    let index: Int
    let configuration: LoadConfiguration
    /// The activities whose events this worker sends.
    let activities: Range<Int>
    /// The most pushes this worker sends (its share of `--requests`).
    let requestCap: Int
    /// Its share of the offered rate (the run's profile divided among the workers).
    let rateProfile: RateProfile?
    /// The run's start on the monotonic clock, and on the wall clock in UNIX seconds.
    let startNanos: UInt64
    let startedAtUnix: Double
    /// The scenario time of the run's first event, milliseconds.
    let firstEventMs: Int64
    let tokens: ProviderTokenCache
    /// Set by Ctrl-C; `abort` is set by the engine when another worker failed.
    let stop: StopFlag
    let abort: StopFlag
    let timeline: RunTimeline

    /// The intended time of a push the rate profile never reaches (its rate fell to 0 for good).
    static let never = UInt64.max

    /// How long an interrupted run waits for requests in flight.
    static let drainSeconds: UInt64 = 2
    private static let publishIntervalNanos: UInt64 = 250_000_000

    func run(onAccepted: (AcceptedPush) -> Void) throws -> Outcome {
        var transport = configuration.transport
        transport.connections = Self.share(
            of: configuration.transport.connections,
            worker: index,
            of: configuration.threads
        )
        let client = try configuration.transportKind.makeClient(transport)
        var stream = try RunEvents(configuration.scenario, activities: activities, pacing: configuration.pacing)
        var source = ScenarioPushSource(scenario: configuration.scenario, realTokens: configuration.realTokens)
        // apns-id bits: seeded once from the system, then no syscall per request (the system
        // generator costs a getrandom(2) per call). SplitMix64's outputs do not repeat within 2^64.
        var system = SystemRandomNumberGenerator()
        var idBits = SplitMix64(seed: system.next())
        let expiration = Int64(startedAtUnix) + configuration.expirationSeconds
        var reader = ProviderTokenCache.Reader(tokens)
        let signer = try ES256Signer(key: tokens.key)
        var bearer = try reader.token(now: Int64(startedAtUnix))
        var headers = HeaderSet(configuration, bearer: bearer, expiration: expiration)
        var path: [UInt8] = []
        var inFlight = InFlightRequests(capacity: transport.connections * transport.streamsPerConnection)
        // Tokens answered 410: a careful sender never sends to them again.
        var goneTokens = Set<Int>()
        var skipped = 0
        var startsNotSent = 0

        let cpuAtStart = threadCPUSeconds()
        let measuredFrom = startNanos + UInt64(configuration.warmupSeconds * 1e9)
        var metrics = RunMetrics(startNanos: measuredFrom, timeline: timeline, worker: index)
        // The pushes waiting to go again.
        var retryQueue = RetryQueue()
        var retryCounts = RetryCounts()
        var jitter = SplitMix64(seed: system.next())
        var stages = StageTimes()
        var pending = stream.next()
        // First attempts: the rate schedule's index and what --requests caps.
        var sent = 0
        var nextPublish = startNanos + Self.publishIntervalNanos
        var nextTokenCheck = startNanos + 1_000_000_000
        let submitUntil = configuration.durationSeconds.map { measuredFrom + UInt64($0 * 1e9) } ?? .max
        var drainDeadline: UInt64? = nil
        var submitting = true

        while true {
            var now = monotonicNanos()
            if (stop.isSet || abort.isSet) && drainDeadline == nil {
                drainDeadline = now + Self.drainSeconds * 1_000_000_000
            }
            if drainDeadline != nil || now >= submitUntil || sent >= requestCap { submitting = false }
            if now >= nextTokenCheck {
                nextTokenCheck = now + 1_000_000_000
                let current = try reader.token(now: Int64(unixNow()))
                if current != bearer && configuration.tokenPolicy == .cached {
                    bearer = current
                    headers = HeaderSet(configuration, bearer: bearer, expiration: expiration)
                }
                stages.add(.signing, from: now, to: monotonicNanos())
            }
            while drainDeadline == nil, client.idleSlots > 0 {
                // A retry that is due goes before the next new push.
                let retry = retryQueue.popDue(now: monotonicNanos())
                guard let event = retry?.event ?? (submitting && sent < requestCap ? pending : nil) else { break }
                let attempt = retry?.attempt ?? 0
                if attempt == 0, !source.sends(event) || goneTokens.contains(Self.tokenKey(event)) {
                    if source.sends(event) { skipped += 1 } else { startsNotSent += 1 }
                    let begin = monotonicNanos()
                    pending = stream.next()
                    stages.add(.workload, from: begin, to: monotonicNanos())
                    continue
                }
                let intendedAt = attempt > 0 ? nil : intendedTime(of: event, index: sent)
                if intendedAt == Self.never {
                    submitting = false
                    break
                }
                let begin = monotonicNanos()
                if let intendedAt, intendedAt > begin { break }
                let unixSeconds = Int64(unixNow())
                let body = try source.prepare(event, now: unixSeconds, path: &path)
                let encoded = monotonicNanos()
                stages.add(.encoding, from: begin, to: encoded)
                now = encoded
                if configuration.tokenPolicy == .perRequest {
                    let token = try ProviderToken.sign(
                        keyID: tokens.keyID,
                        teamID: tokens.teamID,
                        issuedAt: unixSeconds,
                        with: signer
                    )
                    headers = HeaderSet(configuration, bearer: token, expiration: expiration)
                    now = monotonicNanos()
                    stages.add(.signing, from: encoded, to: now)
                }
                let tag = inFlight.add(event, attempt: attempt)
                try client.submit(
                    tag: tag,
                    intendedAt: intendedAt ?? now,
                    path: path,
                    apnsID: (idBits.next(), idBits.next()),
                    headers: headers.block(priority: configuration.priorityOverride ?? event.priority),
                    body: body
                )
                let submitted = monotonicNanos()
                stages.add(.submit, from: now, to: submitted)
                if metrics.recordSent(now: now, intendedAt: intendedAt ?? now) { inFlight.markWarmup(tag) }
                if attempt > 0 {
                    retryCounts.attempts.sent += 1
                    continue
                }
                sent += 1
                pending = stream.next()
                stages.add(.workload, from: submitted, to: monotonicNanos())
            }
            let newPushesDone = !submitting || pending == nil || sent >= requestCap
            if client.inFlight == 0 && (drainDeadline != nil || retryQueue.isEmpty) && newPushesDone { break }
            if let deadline = drainDeadline, now >= deadline {
                metrics.recordAbandoned(
                    measured: client.inFlight - inFlight.inWarmup,
                    warmup: inFlight.inWarmup,
                    now: now
                )
                break
            }
            let performing = monotonicNanos()
            var handling: UInt64 = 0
            client.perform { completion in
                let answeredAt = monotonicNanos()
                defer { handling &+= monotonicNanos() &- answeredAt }
                let request = inFlight.remove(completion.tag)
                let (event, attempt) = (request.event, request.attempt)
                metrics.record(completion, now: answeredAt, warmup: request.inWarmup)
                if attempt > 0 { retryCounts.attempts.count(completion.outcome) }
                if RetryPolicy.isRetryable(completion.outcome) && configuration.retryPolicy.maxRetries > 0 {
                    if attempt < configuration.retryPolicy.maxRetries && drainDeadline == nil {
                        let delay = configuration.retryPolicy.delayNanos(
                            attempt: attempt + 1,
                            retryAfterSeconds: completion.retryAfterSeconds,
                            random: &jitter
                        )
                        retryQueue.add(event, attempt: attempt + 1, dueNanos: answeredAt + delay)
                    } else {
                        retryCounts.exhausted += 1
                    }
                }
                guard case .response(let status, _) = completion.outcome else { return }
                if status == 410 { goneTokens.insert(Self.tokenKey(event)) }
                if status == 200 && attempt > 0 { retryCounts.recovered += 1 }
                if status == 200 {
                    let elapsedSeconds = Double(answeredAt &- startNanos) / 1e9
                    onAccepted(
                        AcceptedPush(
                            worker: index,
                            event: event,
                            timestampSeconds: Int64(startedAtUnix + elapsedSeconds),
                            answeredAtSimulatedMs: firstEventMs
                                + Int64(elapsedSeconds * 1000 * configuration.pacing.simulatedSecondsPerSecond)
                        )
                    )
                }
            }
            now = monotonicNanos()
            stages.add(.transport, from: performing &+ handling, to: now)
            stages.add(.responses, from: 0, to: handling)
            // After the answers, so the streams they freed count: a free stream with a push to
            // send must not sit idle until the next answer arrives.
            var wait =
                submitting ? waitForPush(pending, index: sent, slotsFree: client.idleSlots > 0) : Self.longestWait
            if let due = retryQueue.nextDueNanos, client.idleSlots > 0 {
                wait = min(wait, Self.wait(until: due, now: now))
            }
            client.wait(timeoutNanos: wait)
            now = monotonicNanos()
            if now >= nextPublish {
                timeline.publish(metrics.counts, warmup: metrics.warmup, worker: index)
                nextPublish = now + Self.publishIntervalNanos
            }
        }
        let end = monotonicNanos()
        retryCounts.exhausted += retryQueue.count  // stopped before their turn
        metrics.finish(now: end)
        timeline.publish(metrics.counts, warmup: metrics.warmup, worker: index)
        return Outcome(
            metrics: metrics,
            skippedForGoneTokens: skipped,
            startsNotSent: startsNotSent,
            stages: stages,
            retries: retryCounts,
            recoveries: client.recoveries,
            cpuSeconds: threadCPUSeconds() - cpuAtStart
        )
    }

    /// When push number `index` of this worker, `event`, is meant to leave; `nil` in closed loop.
    private func intendedTime(of event: WorkloadEvent, index: Int) -> UInt64? {
        switch configuration.pacing {
        case .closedLoop:
            return nil
        case .rate:
            guard let seconds = rateProfile?.seconds(ofPush: index) else { return Self.never }
            return startNanos + UInt64(seconds * 1e9)
        case .scenarioTime(let scale):
            return startNanos + UInt64(Double(event.timeMs - firstEventMs) * 1e6 / scale)
        case .burst:
            return startNanos
        }
    }

    /// How long the client may wait for traffic: `longestWait`, none when a stream is free for a
    /// closed-loop push, or until an open-loop push is due when a stream is free to send it.
    private func waitForPush(_ pending: WorkloadEvent?, index: Int, slotsFree: Bool) -> UInt64 {
        guard slotsFree, let pending else { return Self.longestWait }
        guard let due = intendedTime(of: pending, index: index) else { return 0 }
        return Self.wait(until: due, now: monotonicNanos())
    }

    /// The longest wait, so the worker publishes its progress and sees Ctrl-C promptly.
    static let longestWait: UInt64 = 20_000_000
    /// How long before a push is due the worker stops sleeping and polls without waiting: a
    /// wake-up from sleep takes tens of microseconds, and a push sent late counts against it.
    /// Sleeping until then rather than polling all along keeps a slow open-loop run (a push every
    /// millisecond, say) from spinning a core, which would also wrongly call the sender limited.
    static let spinBeforeDue: UInt64 = 100_000

    /// How long to wait for something due at `due`: until `spinBeforeDue` before it, at most
    /// `longestWait`, and nothing once it is that close.
    static func wait(until due: UInt64, now: UInt64) -> UInt64 {
        guard due > now &+ spinBeforeDue else { return 0 }
        return min(longestWait, due - now - spinBeforeDue)
    }

    /// One number per token across both populations the scenario addresses.
    private static func tokenKey(_ event: WorkloadEvent) -> Int {
        event.tokenIndex << 1 | (event.tokenKind == .pushToStart ? 1 : 0)
    }

    /// Worker `worker`'s part of `total` when it is shared out among `workers` as evenly as
    /// possible (the first ones take the remainder).
    static func share(of total: Int, worker: Int, of workers: Int) -> Int {
        total / workers + (worker < total % workers ? 1 : 0)
    }
}
