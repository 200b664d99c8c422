import Basics
import Transport
import Wire
import Workload

/// One Dispatch worker of a run: its own transport client and connections, its own share of
/// the scenario's activities, its own metrics.
///
/// This is what a worker is given; `WorkerLoop` is what it does. Nothing is shared with other
/// workers but the provider token cache, the stop flags, the run's timeline and its live
/// figures.
struct LoadWorker: Sendable {
    /// What the worker hands back when it is done.
    struct Outcome: Sendable {
        var metrics: RunMetrics
        var skippedForGoneTokens: Int
        var startsNotSent: Int
        var stages: StageTimes
        var retries: RetryCounts
        var recoveries: TransportRecoveries?
        var connectionAttempts: Int
        var gaveUp: Bool
        /// Whether the worker took every event of its share (none was left unsent).
        var tookEveryEvent: Bool
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
    /// Where the worker answers requests for the run's live figures.
    let live: LiveMetrics

    /// The intended time of a push the rate profile never reaches (its rate fell to 0 for good).
    static let never = UInt64.max

    /// How long requests in flight may take once sending has stopped (`--duration` reached, or
    /// another worker failed); then they are counted as timed out.
    static let drainNanos: UInt64 = 2_000_000_000

    /// The same after Ctrl-C or SIGTERM: shorter, so the whole command, its report included,
    /// ends within 2 s of the signal.
    static let stopDrainNanos: UInt64 = 1_000_000_000

    /// Sends the worker's share through a client made by `makeTransport`, calling `onAccepted`
    /// for each push answered 200, and returns what it measured.
    func run(
        makeTransport: (TransportConfiguration) throws -> any PushTransport,
        onAccepted: @escaping (AcceptedPush) -> Void
    ) throws -> Outcome {
        var transport = configuration.transport
        transport.connections = Self.share(
            of: configuration.transport.connections,
            worker: index,
            of: configuration.threads
        )
        if configuration.practices.contains(.tokenPerConnection) {
            let (tokens, clock) = (self.tokens, configuration.wallClock)
            transport.connectionAuthorization = {
                try? ProviderToken.sign(
                    keyID: tokens.keyID,
                    teamID: tokens.teamID,
                    issuedAt: Int64(clock.now()),
                    with: tokens.key
                ).authorization
            }
        }
        var loop = try WorkerLoop(worker: self, client: try makeTransport(transport), onAccepted: onAccepted)
        return try loop.run()
    }

    /// When push number `index` of this worker, `event`, is meant to leave; `nil` in closed loop.
    func intendedTime(of event: WorkloadEvent, index: Int) -> UInt64? {
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
    func waitForPush(_ pending: WorkloadEvent?, index: Int, slotsFree: Bool) -> UInt64 {
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
    static func tokenKey(_ event: WorkloadEvent) -> Int {
        event.tokenIndex << 1 | (event.tokenKind == .pushToStart ? 1 : 0)
    }

    /// Worker `worker`'s part of `total` when it is shared out among `workers` as evenly as
    /// possible (the first ones take the remainder).
    static func share(of total: Int, worker: Int, of workers: Int) -> Int {
        total / workers + (worker < total % workers ? 1 : 0)
    }
}
