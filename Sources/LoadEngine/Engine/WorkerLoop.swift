import Basics
import Transport
import Wire
import Workload

/// What one worker does, as wrk's thread loop does it, in four named phases:
///
/// - `submitDue`: fill every free stream with the next push that is due (a retry first);
/// - `complete`: let the client move bytes, and record each answer or failure;
/// - `pace`: wait for the sockets until the next thing is due, and answer a reader of the
///   run's live figures (`LiveMetrics`);
/// - drain: once sending stops (`--duration`, Ctrl-C, SIGTERM, another worker failed), give the
///   requests in flight `LoadWorker.drainNanos` (`stopDrainNanos` after a signal), then count
///   those still open as timed out.
///
/// Every request ends in exactly one outcome, so the books balance however the run stops.
struct WorkerLoop {
    private let worker: LoadWorker
    private var configuration: LoadConfiguration { worker.configuration }
    private let client: any PushTransport
    private let onAccepted: (AcceptedPush) -> Void

    private var stream: RunEvents
    private var source: ScenarioPushSource
    /// The next new push of the scenario, not yet sent.
    private var pending: WorkloadEvent?
    /// `pending`'s number among the worker's events.
    private var pendingSequence = 0
    /// Which of the events taken so far have ended, for `AcceptedPush.settledBelow`.
    private var settled = SettledEvents()
    /// New pushes sent so far: the rate schedule's index, and what `--requests` caps.
    private var sent = 0
    private var inFlight: InFlightRequests
    /// The pushes waiting to go again.
    private var retryQueue = RetryQueue()
    /// In closed loop, new pushes go out a batch of free streams at a time.
    private var batch: SubmitBatch
    /// Whether the target's connections keep failing, and until when to hold off.
    private var backoff: BackoffGate
    /// Tokens answered 410: a careful sender never sends to them again.
    private var goneTokens = Set<Int>()

    private var reader: ProviderTokenCache.Reader
    private let signer: ES256Signer
    private let expiration: Int64
    private var headers: HeaderSet
    private var bearer: ProviderToken
    private var path: [UInt8] = []
    // apns-id bits: seeded once from the system, then no syscall per request (the system
    // generator costs a getrandom(2) per call). SplitMix64's outputs do not repeat within 2^64.
    private var idBits: SplitMix64
    private var jitter: SplitMix64

    private var metrics: RunMetrics
    private var retryCounts = RetryCounts()
    private var stages = StageTimes()
    private var skipped = 0
    private var startsNotSent = 0
    private let cpuAtStart: Double

    private let requestTimeoutNanos: UInt64
    /// When new pushes stop: the end of `--duration` after the warmup.
    private let submitUntil: UInt64
    /// Set when sending stopped early or at `--duration`: requests in flight end by then.
    private var drainDeadline: UInt64?
    /// Whether new pushes may still be sent.
    private var submitting = true
    /// Whether the worker stopped because its target answered nothing through every backoff.
    private var gaveUp = false
    /// Set when a hold began during `complete`: the requests still in flight are taken back
    /// from the client once its answers are handed over.
    private var abandonsInFlight = false
    /// The last request for live figures this worker answered.
    private var liveRequestAnswered = 0
    private var nextTokenCheck: UInt64
    /// With the `refresh` practice: how often the worker signs a new token, and when it last did.
    private let refreshNanos: UInt64?
    private var signedAt: UInt64

    init(worker: LoadWorker, client: any PushTransport, onAccepted: @escaping (AcceptedPush) -> Void) throws {
        self.worker = worker
        self.client = client
        self.onAccepted = onAccepted
        let configuration = worker.configuration
        stream = try RunEvents(configuration.scenario, activities: worker.activities, pacing: configuration.pacing)
        source = ScenarioPushSource(
            scenario: configuration.scenario,
            realTokens: configuration.realTokens,
            bundleID: configuration.bundleID,
            channelIDs: configuration.channelIDs
        )
        var system = SystemRandomNumberGenerator()
        idBits = SplitMix64(seed: system.next())
        jitter = SplitMix64(seed: system.next())
        expiration = Int64(worker.startedAtUnix) + configuration.expirationSeconds
        let tokens = worker.tokens
        reader = ProviderTokenCache.Reader(
            configuration.practices.contains(.perWorkerTokens)
                ? ProviderTokenCache(key: tokens.key, keyID: tokens.keyID, teamID: tokens.teamID) : tokens
        )
        refreshNanos =
            configuration.practices.lazy.compactMap { practice -> UInt64? in
                guard case .refresh(let seconds) = practice else { return nil }
                return UInt64(seconds * 1e9)
            }.first
        signedAt = worker.startNanos
        signer = try ES256Signer(key: worker.tokens.key)
        bearer = try reader.token(now: Int64(worker.startedAtUnix))
        headers = HeaderSet(configuration, bearer: bearer, expiration: expiration)
        inFlight = InFlightRequests(capacity: client.idleSlots)
        batch = SubmitBatch(
            streams: client.idleSlots,
            closedLoop: !configuration.pacing.isOpenLoop,
            holdNanos: configuration.submitBatchHold.inNanoseconds
        )
        cpuAtStart = threadCPUSeconds()
        let measuredFrom = worker.startNanos + configuration.warmup.inNanoseconds
        metrics = RunMetrics(startNanos: measuredFrom, timeline: worker.timeline, worker: worker.index)
        requestTimeoutNanos = configuration.transport.requestTimeout.inNanoseconds
        submitUntil = configuration.duration.map { measuredFrom + $0.inNanoseconds } ?? .max
        backoff = BackoffGate(policy: configuration.reconnectBackoff)
        nextTokenCheck = worker.startNanos + 1_000_000_000
        takeNextEvent()
    }

    /// Runs the phases until the worker's share is sent and answered, or the drain ends.
    mutating func run() throws -> LoadWorker.Outcome {
        while true {
            let now = monotonicNanos()
            noteStop(now: now)
            try refreshToken(now: now)
            try submitDue()
            if isDone { break }
            if let deadline = drainDeadline, now >= deadline {
                abandonInFlight(now: now)
                break
            }
            complete()
            pace()
        }
        let end = monotonicNanos()
        retryCounts.exhausted += retryQueue.count  // stopped before their turn
        metrics.finish(now: end)
        let cpuSeconds = threadCPUSeconds() - cpuAtStart
        worker.live.answer(
            liveSnapshot(now: end, cpuSeconds: cpuSeconds),
            worker: worker.index,
            request: liveRequestAnswered,
            finished: true
        )
        return LoadWorker.Outcome(
            metrics: metrics,
            skippedForGoneTokens: skipped,
            startsNotSent: startsNotSent,
            stages: stages,
            retries: retryCounts,
            recoveries: client.recoveries,
            connectionAttempts: client.connectionAttempts,
            gaveUp: gaveUp,
            tookEveryEvent: pending == nil,
            cpuSeconds: cpuSeconds
        )
    }

    /// Whether the worker has nothing left to send or wait for.
    private var isDone: Bool {
        let newPushesDone = !submitting || pending == nil || sent >= worker.requestCap
        return client.inFlight == 0 && (drainDeadline != nil || retryQueue.isEmpty) && newPushesDone
    }

    /// Stops sending at `--duration`, on a stop request, when another worker failed, or when a
    /// closed-loop run without a duration gives up on a target that answers nothing; and starts
    /// the drain's clock.
    private mutating func noteStop(now: UInt64) {
        if drainDeadline == nil && configuration.duration == nil && !configuration.pacing.isOpenLoop
            && backoff.reachedCap
        {
            gaveUp = true
        }
        if drainDeadline == nil && (worker.stop.isSet || worker.abort.isSet || now >= submitUntil || gaveUp) {
            drainDeadline = now + (worker.stop.isSet ? LoadWorker.stopDrainNanos : LoadWorker.drainNanos)
        }
        if drainDeadline != nil || sent >= worker.requestCap { submitting = false }
    }

    /// Takes a new provider token when the cache has one (every 50 minutes), or, with the
    /// `refresh` practice, signs one when its interval has passed.
    private mutating func refreshToken(now: UInt64) throws {
        if let refreshNanos, now &- signedAt >= refreshNanos {
            signedAt = now
            try signNewToken(issuedAt: Int64(configuration.wallClock.now()))
            stages.add(.signing, from: now, to: monotonicNanos())
            return
        }
        guard now >= nextTokenCheck, refreshNanos == nil else { return }
        nextTokenCheck = now + 1_000_000_000
        let current = try reader.token(now: Int64(configuration.wallClock.now()))
        if current != bearer && configuration.tokenPolicy == .cached {
            bearer = current
            headers = HeaderSet(configuration, bearer: bearer, expiration: expiration)
        }
        stages.add(.signing, from: now, to: monotonicNanos())
    }

    /// Signs a token of the worker's own, bypassing the shared cache (a token per push, or the
    /// `refresh` practice), and sends it from now on.
    private mutating func signNewToken(issuedAt: Int64) throws {
        bearer = try ProviderToken.sign(
            keyID: worker.tokens.keyID,
            teamID: worker.tokens.teamID,
            issuedAt: issuedAt,
            with: signer
        )
        headers = HeaderSet(configuration, bearer: bearer, expiration: expiration)
    }

    // MARK: submit

    /// Fills free streams with pushes that are due: retries first, then the scenario's next. In
    /// closed loop, new pushes wait for a batch of free streams (`SubmitBatch`) unless a retry is
    /// due. While the target is being backed off from, closed loop waits; open loop counts each push
    /// as it falls due, failed with the failure that started the hold, so the schedule is kept and
    /// nothing is hidden (no coordinated omission).
    ///
    /// The clock is read as few times a push as the stages need: each stage ends where the next
    /// begins, and the payload's timestamp (whole seconds) is read once for the round.
    private mutating func submitDue() throws {
        var now = monotonicNanos()
        let retryDue = retryQueue.nextDueNanos.map { $0 <= now } ?? false
        let pushesLeft = submitting && pending != nil ? worker.requestCap - sent : 0
        let held = batch.holds(now: now, idleSlots: client.idleSlots, inFlight: client.inFlight, pushesLeft: pushesLeft)
        if held && !retryDue { return }
        let unixSeconds = Int64(configuration.wallClock.now())
        while drainDeadline == nil, client.idleSlots > 0 {
            let gated = backoff.blocks(now: now, inFlight: client.inFlight)
            let retry = gated ? nil : retryQueue.popDue(now: now)
            guard let event = retry?.event ?? (submitting && sent < worker.requestCap ? pending : nil) else { return }
            let attempt = retry?.attempt ?? 0
            let sequence = retry?.sequence ?? pendingSequence
            let gone = !event.isBroadcast && goneTokens.contains(LoadWorker.tokenKey(event))
            if attempt == 0, !source.sends(event) || gone {
                if source.sends(event) { skipped += 1 } else { startsNotSent += 1 }
                settled.end(sequence)
                now = advanceWorkload(from: now)
                continue
            }
            let intendedAt = attempt > 0 ? nil : worker.intendedTime(of: event, index: sent)
            if intendedAt == LoadWorker.never {
                submitting = false
                return
            }
            if let intendedAt, intendedAt > now { return }
            if gated {
                guard let intendedAt else { return }
                failUnsent(event, intendedAt: intendedAt)
                settled.end(sequence)
                sent += 1
                now = advanceWorkload(from: monotonicNanos())
                continue
            }
            now = try send(
                event,
                sequence: sequence,
                attempt: attempt,
                intendedAt: intendedAt,
                identity: retry?.identity,
                at: (now, unixSeconds)
            )
            if attempt == 0 {
                sent += 1
                now = advanceWorkload(from: now)
            }
        }
    }

    /// Encodes, signs when each push signs its own token, and hands one push to the client; a
    /// retry sends its first attempt's `identity` again. `start` is now, on the monotonic clock
    /// and in UNIX seconds; returns the instant the client had the push.
    private mutating func send(
        _ event: WorkloadEvent,
        sequence: Int,
        attempt: Int,
        intendedAt: UInt64?,
        identity: PushIdentity?,
        at start: (nanos: UInt64, unixSeconds: Int64)
    ) throws -> UInt64 {
        let (begin, unixSeconds) = start
        let identity = identity ?? PushIdentity(apnsID: (idBits.next(), idBits.next()), preparedAt: unixSeconds)
        let body = try source.prepare(event, now: identity.preparedAt, path: &path)
        var now = monotonicNanos()
        stages.add(.encoding, from: begin, to: now)
        if configuration.tokenPolicy == .perRequest {
            try signNewToken(issuedAt: unixSeconds)
            let signed = monotonicNanos()
            stages.add(.signing, from: now, to: signed)
            now = signed
        }
        let tag = inFlight.add(event, sequence: sequence, attempt: attempt, identity: identity)
        try client.submit(
            tag: tag,
            intendedAt: intendedAt ?? now,
            path: path,
            apnsID: identity.apnsID,
            headers: headers.block(for: event, priority: configuration.priorityOverride ?? event.priority),
            body: body
        )
        let submitted = monotonicNanos()
        stages.add(.submit, from: now, to: submitted)
        if metrics.recordSent(now: now, intendedAt: intendedAt ?? now, broadcast: event.isBroadcast) {
            inFlight.markWarmup(tag)
        }
        if attempt > 0 { retryCounts.attempts.sent += 1 }
        return submitted
    }

    /// Counts an open-loop push that fell due while the worker held off from the target: sent
    /// and failed at once, with the failure that started the hold.
    private mutating func failUnsent(_ event: WorkloadEvent, intendedAt: UInt64) {
        let now = monotonicNanos()
        let warmup = metrics.recordSent(now: now, intendedAt: intendedAt, broadcast: event.isBroadcast)
        let cause = backoff.holdCause ?? (.connectionLost, "no connection")
        let completion = PushCompletion(
            tag: -1,
            intendedAt: intendedAt,
            outcome: .failed(cause.kind, message: "not sent while connecting again after a backoff: \(cause.message)"),
            apnsIDEchoed: false,
            localPort: 0
        )
        metrics.record(completion, now: now, warmup: warmup, broadcastTo: event.broadcastSubscribers?.count)
    }

    /// Takes the scenario's next event, timed from `begin`; returns when that ended.
    private mutating func advanceWorkload(from begin: UInt64) -> UInt64 {
        takeNextEvent()
        let end = monotonicNanos()
        stages.add(.workload, from: begin, to: end)
        return end
    }

    /// Takes the scenario's next event, numbered, as the next new push.
    private mutating func takeNextEvent() {
        pending = stream.next()
        if pending != nil { pendingSequence = settled.take() }
    }

    // MARK: complete

    /// Lets the client move bytes and records every request that ended.
    /// The time answers take to record runs from the transport's instant for them (or from the
    /// end of the previous batch's records, whichever is later) to the end of the last of the
    /// batch the transport handed over at that instant, so a batch costs one clock read here, not
    /// one for each answer.
    private mutating func complete() {
        let performing = monotonicNanos()
        var handling: UInt64 = 0
        var recorded: UInt64 = 0
        let client = self.client
        client.perform { completion in
            let answeredAt = completion.answeredAt ?? monotonicNanos()
            record(completion, at: answeredAt)
            guard completion.endsBatch else { return }
            let now = monotonicNanos()
            handling &+= now &- max(answeredAt, recorded)
            recorded = now
        }
        let now = monotonicNanos()
        stages.add(.transport, from: performing &+ handling, to: now)
        stages.add(.responses, from: 0, to: handling)
        if abandonsInFlight, let cause = backoff.holdCause, client.inFlight > 0 {
            client.abandonInFlight(
                cause.kind,
                message: "abandoned when the target's connections failed: \(cause.message)"
            )
        }
        abandonsInFlight = false
    }

    /// Counts one ended request, queues its retry, forgets a gone token, and passes an accepted
    /// push on. An answer later than the request's deadline counts as timed out, whatever it
    /// said: the timeout runs from the same instant as its latency.
    mutating func record(_ completion: PushCompletion, at answeredAt: UInt64) {
        var completion = completion
        if case .response = completion.outcome, answeredAt &- completion.intendedAt > requestTimeoutNanos {
            completion.outcome = .timedOut
        }
        let request = inFlight.remove(completion.tag)
        let (event, attempt) = (request.event, request.attempt)
        var retried = false
        switch completion.outcome {
        case .response: backoff.answered()
        case .failed(let kind, let message):
            if backoff.failed(kind, message: message, now: answeredAt, random: &jitter) { abandonsInFlight = true }
        case .timedOut: break
        }
        metrics.record(
            completion,
            now: answeredAt,
            warmup: request.inWarmup,
            broadcastTo: event.broadcastSubscribers?.count
        )
        if attempt > 0 { retryCounts.attempts.count(completion.outcome) }
        if RetryPolicy.isRetryable(completion.outcome) && configuration.retryPolicy.maxRetries > 0 {
            if attempt < configuration.retryPolicy.maxRetries && drainDeadline == nil {
                let delay = configuration.retryPolicy.delayNanos(
                    attempt: attempt + 1,
                    retryAfterSeconds: completion.retryAfterSeconds,
                    random: &jitter
                )
                retryQueue.add(
                    RetryQueue.Entry(
                        dueNanos: answeredAt + delay,
                        event: event,
                        sequence: request.sequence,
                        attempt: attempt + 1,
                        identity: request.identity
                    )
                )
                retried = true
            } else {
                retryCounts.exhausted += 1
            }
        }
        if !retried { settled.end(request.sequence) }
        guard case .response(let status, _) = completion.outcome else { return }
        if status == 410 { goneTokens.insert(LoadWorker.tokenKey(event)) }
        guard status == 200 else { return }
        if attempt > 0 { retryCounts.recovered += 1 }
        let elapsedSeconds = Double(answeredAt &- worker.startNanos) / 1e9
        onAccepted(
            AcceptedPush(
                worker: worker.index,
                event: event,
                sequence: request.sequence,
                settledBelow: settled.below,
                timestampSeconds: Int64(worker.startedAtUnix + elapsedSeconds),
                answeredAtSimulatedMs: worker.firstEventMs
                    + Int64(elapsedSeconds * 1000 * configuration.pacing.simulatedSecondsPerSecond)
            )
        )
    }

    // MARK: pace

    /// Waits for the sockets until the next push or retry is due (after the answers, so the
    /// streams they freed count: a free stream with a push to send must not sit idle until the
    /// next answer arrives), and answers a request for the run's live figures.
    private mutating func pace() {
        let now = monotonicNanos()
        var wait =
            submitting
            ? worker.waitForPush(pending, index: sent, slotsFree: client.idleSlots > 0 && batch.holdEnds == nil)
            : LoadWorker.longestWait
        if let holdEnds = batch.holdEnds { wait = min(wait, holdEnds > now ? holdEnds - now : 0) }
        if let due = retryQueue.nextDueNanos, client.idleSlots > 0 {
            wait = min(wait, LoadWorker.wait(until: due, now: now))
        }
        if backoff.blocks(now: now, inFlight: client.inFlight) {
            wait = min(
                LoadWorker.longestWait,
                backoff.holdUntil > now ? backoff.holdUntil - now : LoadWorker.longestWait
            )
            if configuration.pacing.isOpenLoop, let pending, submitting,
                let due = worker.intendedTime(of: pending, index: sent)
            {
                wait = min(wait, LoadWorker.wait(until: due, now: now))
            }
        }
        if let deadline = drainDeadline { wait = min(wait, deadline > now ? deadline - now : 0) }
        client.wait(timeoutNanos: wait)
        if let request = worker.live.request(after: liveRequestAnswered) {
            let now = monotonicNanos()
            worker.live.answer(
                liveSnapshot(now: now, cpuSeconds: threadCPUSeconds() - cpuAtStart),
                worker: worker.index,
                request: request
            )
            liveRequestAnswered = request
        }
    }

    /// The worker's figures now, for `LiveMetrics`: copies of its books (the histograms are
    /// copied on write, so the copy costs the worker when it next records, not before).
    private func liveSnapshot(now: UInt64, cpuSeconds: Double) -> LiveSnapshot {
        var snapshot = LiveSnapshot()
        snapshot.counts = metrics.counts
        snapshot.warmup = metrics.warmup
        snapshot.rejectedByReason = metrics.rejectedByReason
        snapshot.erroredByKind = metrics.erroredByKind
        snapshot.latency = metrics.latency
        snapshot.scheduleLag = metrics.scheduleLag
        snapshot.inFlight = client.inFlight
        let due =
            submitting && sent < worker.requestCap ? pending.flatMap { worker.intendedTime(of: $0, index: sent) } : nil
        if let due, due <= now { snapshot.behindScheduleSeconds = Double(now - due) / 1e9 }
        snapshot.backlog = submitting && pending != nil ? backlog(now: now) : 0
        snapshot.connectionsOpen = client.connectionsOpen
        snapshot.connectionAttempts = client.connectionAttempts
        snapshot.reconnections = client.recoveries?.reconnections
        snapshot.retriesSent = retryCounts.attempts.sent
        snapshot.workerCPUSeconds = [cpuSeconds]
        return snapshot
    }

    /// Open loop: how many pushes are due now and not sent, counting the next one; `nil` where
    /// that cannot be told without reading ahead in the scenario.
    private func backlog(now: UInt64) -> Int? {
        switch configuration.pacing {
        case .closedLoop:
            return 0
        case .rate:
            guard let profile = worker.rateProfile else { return 0 }
            let elapsed = Double(now &- min(now, worker.startNanos)) / 1e9
            return max(0, min(profile.pushesDue(bySeconds: elapsed), worker.requestCap) - sent)
        case .burst:
            return stream.burstEventsLeft.map { min($0 + 1, worker.requestCap - sent) }
        case .scenarioTime:
            return nil
        }
    }

    // MARK: drain

    /// Counts the requests still open when the drain ended as timed out, so none goes missing.
    private mutating func abandonInFlight(now: UInt64) {
        metrics.recordAbandoned(
            measured: client.inFlight - inFlight.inWarmup,
            broadcasts: inFlight.measuredBroadcasts,
            warmup: inFlight.inWarmup,
            now: now
        )
    }
}
