import ArgumentParser
import Budget
import Foundation
import Harness
import LoadEngine
import MockAPNs
import Reports
import Telemetry
import Transport
import Wire
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// `pushbench run`: the main job.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Send Live Activity updates and measure latency, throughput and errors.",
        discussion: """
            Without --endpoint, an embedded mock APNs starts on a free loopback port (HTTP/2 over TLS with ALPN h2 \
            and a self-signed certificate made in memory) and verifies every provider token against a P-256 key \
            generated for this run.

            The pushes are a scenario's (--scenario, default football; see `pushbench scenarios`), scaled to \
            --activities: each `start` goes to a synthetic push-to-start token with attributes and an alert, each \
            `update` and `end` to the activity's update token, as `POST /3/device/<token>` with apns-push-type \
            liveactivity, topic <bundle-id>.push-type.liveactivity, the event's priority and an `aps` payload of \
            event, timestamp, content-state and stale-date (dismissal-date for ends). A token answered 410 gets \
            no more pushes, as a careful sender drops it.

            Pacing. By default a push leaves as soon as a stream is free (closed loop) and its latency runs from \
            then. --rate N is open loop at N pushes/s in scenario order, --rate-profile a rate that ramps or \
            steps; --time-scale X is open loop on the \
            scenario's own clock, X times faster (60: a simulated minute per second), so a goal reaches every \
            follower of a match at once. In open loop each push has an intended send time and its latency runs \
            from it, even when no stream was free to send it then, so a stalled target shows in the percentiles \
            (no coordinated omission); the summary adds how late pushes left (schedule lag).

            Work is shared out among --threads Dispatch workers, each with its own HTTP/2 client (--transport), its share \
            of --connections and of the activities. Each HTTP/2 connection carries up to --streams streams. The \
            run ends when the scenario is sent, after --requests pushes, or when --duration has passed. \
            Progress goes to stderr; the summary to stdout; the report to <reports-dir>/<run-id>/ (summary.json, \
            latency_percentiles.csv, timeseries.csv, report.html, budget files). At --duration sending stops and pushes \
            in flight get 2 s more, on Ctrl-C or SIGTERM 1 s more, so the command ends within 2 s of the signal; \
            those still open then are counted as timed out, so every stop is bounded and the books still balance.

            Exit status: 0 when pushes succeeded and the books balance; 1 when a --threshold failed (the report \
            is written first); 2 for bad input, checked before sending \
            (a missing or malformed file, an unwritable --reports-dir, too many --activities for memory); 3 when \
            the run ended but no push succeeded (every one refused, untrusted, failed or timed out: the report \
            says why); 4 when the mock could not start or the report could not be written; 64 for a malformed \
            command line; 130 after Ctrl-C, 143 after SIGTERM (the report is still written).

              pushbench run --activities 2000 --threads 2
              pushbench run --scenario football --activities 10000 --time-scale 120 \\
                  --budget-preset conservative
              pushbench run --rate 2000 --duration 30s
            """
    )

    @OptionGroup(title: "Scenario")
    var workload: ScenarioOptions

    @OptionGroup var limit: RequestLimitOptions

    @Option(
        help: ArgumentHelp(
            "Send only shard i of N (0-based) of the run, such as 1/4, so that N processes or machines share it.",
            discussion: """
                A shard sends its contiguous share of the activities (so its own tokens), of --requests and of \
                --rate or --rate-profile; everything else is the whole run's, so `pushbench merge` adds the shards' \
                summaries up into one report. In a Kubernetes Indexed Job, JOB_COMPLETION_INDEX with \
                PUSHBENCH_SHARD_COUNT set to the Job's completions does the same (see deploy/kubernetes/).
                """
        )
    )
    var shard: String?

    @Option(
        name: .customLong("start-at"),
        help: ArgumentHelp(
            "Start the run's schedule at this instant (RFC 3339 such as 2026-11-25T18:00:00Z, or UNIX seconds), as every shard does.",
            discussion: """
                The run sets up (the embedded mock, broadcast channels), then waits for the instant and starts its \
                clock there, so shards on many machines with synchronised clocks share one start and `pushbench \
                merge` lines their seconds up truly; merge refuses shards that started further apart than \
                --max-start-skew. PUSHBENCH_START_AT does the same for a Job's pods. An instant in the past or more \
                than 24 hours ahead is refused; Ctrl-C while waiting ends the run with nothing sent.
                """
        )
    )
    var startAt: String?

    @OptionGroup(title: "Pacing")
    var pace: PacingOptions

    @OptionGroup(title: "Connections, deadlines and retries")
    var link: ConnectionOptions

    @OptionGroup var app: AppOptions

    @Option(
        help:
            "apns-priority for every push: 10 (immediate, spends the device's budget), 5 or 1 (default: the scenario's per event)."
    )
    var priority: Int?

    @Flag(
        name: .customLong("dry-run"),
        help: "Print the first 3 requests (bearer token redacted) and send nothing."
    )
    var dryRun = false

    @OptionGroup(title: "Target")
    var destination: TargetOptions

    @OptionGroup(title: "Provider key (default: a P-256 key generated for this run)")
    var key: ProviderKeyOptions

    @Option(
        name: .customLong("jwt-mode"),
        help: ArgumentHelp(
            "Provider tokens: cached (one per 50 minutes) or per-request (a new signature per push).",
            discussion: """
                per-request reproduces a common sender bug so its cost can be seen: an ES256 signature per push, and \
                429 TooManyProviderTokenUpdates from APNs (and the mock) for every new token within 20 minutes of \
                the last one on a connection.
                """
        )
    )
    var jwtMode = ProviderTokenPolicy.cached

    @Option(
        name: .customLong("practice"),
        help: ArgumentHelp(
            "Make a sender mistake on purpose (repeatable), to see what it costs and what `pushbench mock --report` says of it.",
            discussion: """
                per-worker-tokens: each --threads worker signs its own provider token. token-per-connection: each \
                connection signs its own. token-per-push: a new token per push (--jwt-mode per-request). \
                refresh=DURATION: each worker signs a new token every DURATION (APNs allows one per 20 minutes). clock-skew=DURATION: \
                the clock is DURATION ahead (or behind, -DURATION), for tokens, timestamps and apns-expiration. \
                connection-per-push: a new connection per push. one-stream: one stream per connection. \
                retry-without-backoff: refused pushes (429, 500, 503) go again at once, 3 times, whatever \
                Retry-After says. all-priority-10: every event at priority 10. The report shows the practices \
                with the run's refusals by reason, retries and connections. Against a mock only: a practice \
                toward Apple could get the key or the host blocked.
                """
        )
    )
    var practices: [String] = []

    @OptionGroup var reports: ReportsFolderOptions

    @OptionGroup(title: "Gates and machine-readable output")
    var gate: GateOptions

    @OptionGroup(title: "Live figures for Prometheus")
    var metrics: MetricsOptions

    @OptionGroup
    var baseline: BaselineOption

    @OptionGroup(title: "The embedded mock")
    var embeddedMock: EmbeddedMockOptions

    @OptionGroup(title: "Device budget of the accepted pushes")
    var budget: RunBudgetOptions

    @OptionGroup(title: "Where the CPU goes")
    var perf: PerfOptions

    static let generatedKeyID = "PBKEY00001"
    static let generatedTeamID = "PBTEAM0001"

    func validate() throws {
        try workload.requireOneDelivery()
        _ = try gate.parsed(for: .run)
        if let priority, ![1, 5, 10].contains(priority) { throw ValidationError("--priority must be 1, 5 or 10") }
        if destination.endpoint != nil && embeddedMock.isSet {
            throw ValidationError(
                "--mock-threads, the token hygiene, faults and answer rules shape the embedded mock; give them to `pushbench mock` instead"
            )
        }
        try RunTarget(parsing: destination.endpoint).checkAppleRules(
            tokensFile: destination.tokensFile,
            key: key.authKey,
            bundleID: app.bundleID,
            paced: (pace.rate, pace.rateProfile != nil || pace.timeScale != nil || pace.burst != nil),
            noRateCap: destination.noRateCap,
            trust: (destination.insecure, destination.caFile)
        )
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let stop = StopFlag()
        let trap = InterruptTrap { stop.set() }
        defer { _ = trap }
        let tokens = try key.signing(generatedKeyID: Self.generatedKeyID, generatedTeamID: Self.generatedTeamID)
        let preset = try BudgetParameters.preset(named: budget.budgetPreset)
        let target = try RunTarget(parsing: destination.endpoint)
        let baselineFigures = try baseline.figures()
        var (load, channelOrigin) = try loadConfiguration(toward: target)
        guard let sessionTarget = try sessionTarget(toward: target, load: &load, tokens: tokens) else { return }
        var session = RunSession(
            load: load,
            target: sessionTarget,
            tokens: tokens,
            budget: budget.noBudget ? nil : preset.parameters,
            budgetClock: budget.budgetClock
        )
        session.channelOrigin = channelOrigin
        let runID = RunContext.makeRunID(startingAt: load.startAtUnix)
        let live = LiveMetrics()
        let metricsEndpoint = try metrics.start(runID: runID, load: load, live: live)
        defer { metricsEndpoint?.stop() }
        announce(load)
        let sampling = perf.start()
        var display = ProgressDisplay()
        let outcome: RunSession.Outcome
        do {
            outcome = try session.run(
                stop: stop,
                live: live,
                notice: { Console.err($0) },
                progress: { display.show($0) }
            )
        } catch {
            display.finish()
            _ = PerfOptions.workerStacks(sampling, threads: link.threads)
            throw CommandLineError.runtime("\(error)")
        }
        display.finish()
        let (result, thresholdsHeld) = try report(
            outcome,
            load: load,
            runID: runID,
            budgetSource: preset.source,
            baseline: baselineFigures,
            cpuSampling: PerfOptions.workerStacks(sampling, threads: link.threads)
        )
        if let metricsEndpoint { metrics.hold(metricsEndpoint, stop: stop) }
        try trap.throwIfInterrupted()
        if !result.counts.isBalanced { throw CommandLineError("internal error: the run's books do not balance") }
        if result.nothingSucceeded || result.counts.sent == 0 { throw ExitCode(ExitStatus.nothingSucceeded) }
        if !thresholdsHeld { throw ExitCode(ExitStatus.gateFailed) }
    }
}

extension Scenario.Delivery: ExpressibleByArgument {}
