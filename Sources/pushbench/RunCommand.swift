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
            latency_percentiles.csv, timeseries.csv, report.html, budget files). At --duration, or on Ctrl-C or \
            SIGTERM, sending stops and pushes in flight get 2 s more; those still open then are counted as timed \
            out, so every stop is bounded and the books still balance.

            Exit status: 0 when pushes succeeded and the books balance; 2 for bad input, checked before sending \
            (a missing or malformed file, an unwritable --reports-dir, too many --activities for memory); 3 when \
            the run ended but no push succeeded (every one refused, untrusted, failed or timed out: the report \
            says why); 4 when the mock could not start or the report could not be written; 64 for a malformed \
            command line; 130 after Ctrl-C, 143 after SIGTERM (the report is still written).

              pushbench run --activities 2000 --threads 2
              pushbench run --scenario football --activities 10000 --time-scale 120 --budget-preset conservative
              pushbench run --rate 2000 --duration 30s
            """
    )

    @Option(help: "A built-in scenario (pushbench scenarios list) or a scenario file.")
    var scenario = "football"

    @Option(help: "Scale the scenario to this many activities (default: 1000, or one per --tokens line).")
    var activities: Int?

    @Option(help: "Stop after this many pushes (default: the whole scenario).")
    var requests: Int?

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

    @Option(
        help: "Stop sending after this long (30s, 5m); answers in flight are still awaited."
    )
    var duration: TimeSpan?

    @Option(
        help: ArgumentHelp(
            "Send a push again after 429, 500, 503 or a transport failure, up to this many times.",
            discussion: """
                Each retry waits the answer's Retry-After, or a random time below --retry-backoff × 2^(retry-1) \
                (at most 10 s), as careful senders do. Retries are requests in every count, and are also counted \
                apart. Timeouts are not retried: the push may have arrived.
                """
        )
    )
    var retries = 0

    @Option(
        name: .customLong("retry-backoff"),
        help: "The first retry's backoff bound (100ms, 1s)."
    )
    var retryBackoff = TimeSpan(seconds: 0.1)

    @Option(
        help:
            "How long at the start pushes are sent but kept out of the figures, counted apart as the warmup (10s)."
    )
    var warmup = TimeSpan(seconds: 0)

    @Option(help: "Dispatch worker threads, each with its own HTTP/2 client and share of the connections.")
    var threads = 1

    @Option(help: "Most HTTP/2 connections to open.")
    var connections = 4

    @Option(help: "Most concurrent streams per connection (the server's SETTINGS may allow fewer).")
    var streams = 100

    @Option(
        help: ArgumentHelp(
            "HTTP/2 client: nghttp2 (libnghttp2 over libssl, one TLS write per loop) or curl (libcurl multi).",
            discussion: """
                nghttp2 spends about a quarter of libcurl's CPU per push; curl is the compatible one, for TLS set-ups \
                only libcurl handles. Benchmarks/h2load-compare.sh measures both against h2load.
                """
        )
    )
    var transport = TransportKind.nghttp2

    @Option(
        help:
            "Open loop at this many pushes per second (default: closed loop, as fast as streams free up, refilled a batch of an eighth of them at a time, held at most 100 µs)."
    )
    var rate: Double?

    @Option(
        name: .customLong("rate-profile"),
        help: ArgumentHelp(
            "Open loop at a rate that changes: SECONDS:RATE,... (straight lines between points) or a file of them.",
            discussion: """
                0:100,60:2000 ramps from 100/s to 2000/s over a minute, then holds; 0:500,30:500,30:1000,60:1000,60:0 \
                is two 30-second steps, then stops. A file holds one SECONDS,RATE pair per line (a header line \
                "seconds,rate" is allowed).
                """
        )
    )
    var rateProfile: String?

    @Option(
        help: ArgumentHelp(
            "Open loop, a burst: one update of this kind (goal, status, ...) to every activity, all due at once.",
            discussion: """
                The goal in the final: latency runs from the burst's start, so p50 and p99 say when half and 99% \
                of the followers had it, and the run's length when the last did.
                """
        )
    )
    var burst: String?

    @Option(
        name: .customLong("time-scale"),
        help: "Open loop on the scenario's clock, this many times faster (60: a simulated minute per second)."
    )
    var timeScale: Double?

    @Option(
        help: ArgumentHelp(
            "Per-request deadline (500ms, 10s), from the instant the push's latency runs from.",
            discussion: """
                In open loop that is the push's intended send time, so a push that waited for a stream has less \
                time left. A push past its deadline is cancelled (RST_STREAM CANCEL) and counted as timed out; an \
                answer that arrives later is counted nowhere else, so no succeeded push is slower than this.
                """
        )
    )
    var timeout = TimeSpan(seconds: 10)

    @Option(
        name: .customLong("connect-timeout"),
        help:
            "Deadline for a TCP connect, and again for the TLS handshake after it (250ms, 5s)."
    )
    var connectTimeout = TimeSpan(seconds: 5)

    @Option(
        name: .customLong("ping-interval"),
        help: ArgumentHelp(
            "A connection with pushes open that reads nothing for this long is sent an HTTP/2 PING.",
            discussion: """
                If that PING goes unanswered as long again, the connection is taken for dead (a peer gone without \
                FIN) and its pushes fail as connection_lost, to be retried with --retries. nghttp2 transport only; \
                with curl, --timeout bounds such pushes.
                """
        )
    )
    var pingInterval = TimeSpan(seconds: 5)

    @Option(
        name: .customLong("reconnect-backoff"),
        help: ArgumentHelp(
            "After a connection fails with no answer since the last failure, wait about this long before connecting again.",
            discussion: """
                Each such failure in a row doubles the wait (with jitter: half to all of it), up to \
                --reconnect-backoff-max; then one push goes alone as a probe, and any answer ends the backoff. \
                Meanwhile closed loop waits, and open loop counts each push as it falls due, failed with the \
                connection's failure. A connection that completed pushes before it closed reconnects at once.
                """
        )
    )
    var reconnectBackoff = TimeSpan(seconds: 0.1)

    @Option(
        name: .customLong("reconnect-backoff-max"),
        help: "The longest wait between connection attempts."
    )
    var reconnectBackoffMax = TimeSpan(seconds: 5)

    @Option(help: "Override the scenario's seed (its tokens and events).")
    var seed: UInt64?

    @Option(
        help: ArgumentHelp(
            "How updates reach the activities, for every cohort: token or broadcast (default: each cohort's own delivery).",
            discussion: """
                broadcast (iOS 18): a channel per group is created before the run through the channel \
                management API (--channel-endpoint; the embedded mock serves one), each activity's start \
                subscribes to it, each step is one push to /4/broadcasts/apps/<bundle-id>, and the channels \
                are deleted when the run ends. A group stays with one worker.
                """
        )
    )
    var delivery: Scenario.Delivery?

    @Option(
        help: "Channel management API for broadcasts to --endpoint https://host:port (the mock's --channel-port)."
    )
    var channelEndpoint: String?

    @Flag(
        help:
            "Allow broadcasts toward Apple: channels are then created (and deleted) on your app for real, up to Apple's 10,000."
    )
    var broadcastOnApple = false

    @Option(name: .customLong("bundle-id"), help: "App bundle ID; the topic is <bundle-id>.push-type.liveactivity.")
    var bundleID = RunCommand.defaultBundleID

    @Option(
        help:
            "apns-priority for every push: 10 (immediate, spends the device's budget), 5 or 1 (default: the scenario's per event)."
    )
    var priority: Int?

    @Option(
        help: ArgumentHelp(
            "production, sandbox, or https://host:port (e.g. a `pushbench mock`) (default: an embedded mock).",
            discussion: "Toward Apple's servers a run needs --tokens, --key, --bundle-id, and keeps to 50 pushes/s."
        )
    )
    var endpoint: String?

    @Option(
        name: .customLong("tokens"),
        help: ArgumentHelp(
            "Your devices' activity tokens, one hex token per line, instead of synthetic ones.",
            discussion: """
                Activity i's pushes go to line i (modulo the count); the scenario's starts are not sent, since \
                your apps started those activities. Required toward production or sandbox.
                """
        )
    )
    var tokensFile: String?

    @Flag(
        name: .customLong("no-rate-cap"),
        help: "Allow more than 50 pushes/s toward Apple's servers (production, sandbox)."
    )
    var noRateCap = false

    @Flag(
        name: .customLong("dry-run"),
        help: "Print the first 3 requests (bearer token redacted) and send nothing."
    )
    var dryRun = false

    @Option(
        name: .customLong("ca-file"),
        help: "PEM certificate(s) to trust for --endpoint instead of the system store."
    )
    var caFile: String?

    @Flag(help: "Do not verify the --endpoint certificate (test servers only).")
    var insecure = false

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

    @Option(name: .customLong("reports-dir"), help: "Folder the report folder is written into.")
    var reportsDir = "Reports"

    @Option(name: .customLong("mock-threads"), help: "Event-loop threads of the embedded mock.")
    var mockThreads = 1

    @Option(
        name: .customLong("metrics-port"),
        help: ArgumentHelp(
            "Serve the run's live figures on this port at /metrics, in Prometheus' format, while it runs (0: any free port).",
            discussion: """
                Pushes by outcome and reason, in flight, due and not sent (the open-loop backlog), connections,                 latency and schedule lag as histograms, worker CPU, labelled with the run's id and shard: each                 scrape reads the workers' own counters then, and the last one agrees with summary.json. A port                 in use stops the run before it starts. docs/telemetry.md names every series; deploy/grafana/                 has a dashboard.
                """
        )
    )
    var metricsPort: Int?

    @Option(
        name: .customLong("metrics-host"),
        help: "The address --metrics-port listens on (0.0.0.0 in a pod that Prometheus scrapes)."
    )
    var metricsHost = "127.0.0.1"

    @Option(
        name: .customLong("metrics-hold"),
        help:
            "Keep serving /metrics this long after the run, so the next scrape sees its final figures (30s)."
    )
    var metricsHold = TimeSpan(seconds: 0)

    @OptionGroup
    var baseline: BaselineOption

    @OptionGroup(title: "Token hygiene of the embedded mock")
    var tokenHygiene: TokenHygieneOptions

    @Option(
        name: .customLong("budget-preset"),
        help:
            "Budget preset the accepted pushes are run through (conservative, community, frequent; see `pushbench budget`)."
    )
    var budgetPreset = "community"

    @Flag(name: .customLong("no-budget"), help: "Do not model what the devices would show of the accepted pushes.")
    var noBudget = false

    @Option(
        name: .customLong("budget-clock"),
        help: ArgumentHelp(
            "When the accepted pushes reach the modelled devices: scenario or run.",
            discussion: """
                scenario (the default): at each push's event time in the scenario, however fast the run sent it, so \
                the budget section says what the scenario's policy costs the devices and agrees with `pushbench \
                budget`. run: when the run got each push accepted (scaled by --time-scale), which answers another \
                question: what the devices would make of a sender firing this fast.
                """
        )
    )
    var budgetClock = BudgetClock.scenario

    static let defaultBundleID = "com.example.pushbench"
    static let generatedKeyID = "PBKEY00001"
    static let generatedTeamID = "PBTEAM0001"

    func validate() throws {
        if let requests, requests < 1 { throw ValidationError("--requests must be at least 1") }
        if let activities, activities < 1 { throw ValidationError("--activities must be at least 1") }
        if let duration, duration.nanoseconds == 0 { throw ValidationError("--duration 0: must be longer than 0") }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be 0 to 10") }
        guard timeout.nanoseconds > 0, retryBackoff.nanoseconds > 0 else {
            throw ValidationError("--timeout and --retry-backoff must be longer than 0")
        }
        guard connectTimeout.nanoseconds > 0, pingInterval.nanoseconds > 0, reconnectBackoff.nanoseconds > 0 else {
            throw ValidationError("--connect-timeout, --ping-interval and --reconnect-backoff must be longer than 0")
        }
        guard connections > 0 else { throw ValidationError("--connections \(connections): must be at least 1") }
        guard streams > 0 else { throw ValidationError("--streams \(streams): must be at least 1") }
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be 1 to 64") }
        guard connections >= threads else {
            throw ValidationError("--connections must be at least --threads: each worker owns its connections")
        }
        guard CurlPushClient.allowsInFlight(connections: connections, streams: streams) else {
            throw ValidationError(
                "--connections × --streams may be at most \(CurlPushClient.maxInFlight) requests in flight"
            )
        }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be a positive number") }
        if let timeScale, !(timeScale > 0 && timeScale.isFinite) {
            throw ValidationError("--time-scale must be a positive number")
        }
        if [rate != nil, rateProfile != nil, timeScale != nil, burst != nil].filter({ $0 }).count > 1 {
            throw ValidationError("--rate, --rate-profile, --time-scale and --burst are ways to pace a run; give one")
        }
        if let burst, EventKind(rawValue: burst) == nil {
            throw ValidationError(
                "--burst: no event kind '\(burst)'; the kinds are "
                    + EventKind.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        if burst != nil && warmup.nanoseconds > 0 {
            throw ValidationError("--warmup does not apply to --burst: all of it is due at once")
        }
        if let priority, ![1, 5, 10].contains(priority) { throw ValidationError("--priority must be 1, 5 or 10") }
        guard (1...256).contains(mockThreads) else { throw ValidationError("--mock-threads must be 1 to 256") }
        if let metricsPort, !(0...65535).contains(metricsPort) {
            throw ValidationError("--metrics-port must be 0 to 65535")
        }
        if metricsHold.nanoseconds > 0 && metricsPort == nil {
            throw ValidationError("--metrics-hold keeps --metrics-port open: give --metrics-port too")
        }
        do {
            _ = try BudgetParameters.preset(named: budgetPreset)
        } catch {
            throw ValidationError("--budget-preset: \(error)")
        }
        if endpoint != nil && tokenHygiene.isSet {
            throw ValidationError(
                "--unregistered, --expiring and --other-topic shape the embedded mock; give them to `pushbench mock` instead"
            )
        }
        try RunTarget(parsing: endpoint).checkAppleRules(
            tokensFile: tokensFile,
            key: key.authKey,
            bundleID: bundleID,
            paced: (rate, rateProfile != nil || timeScale != nil || burst != nil),
            noRateCap: noRateCap,
            trust: (insecure, caFile)
        )
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let stop = StopFlag()
        let trap = InterruptTrap { stop.set() }
        defer { _ = trap }
        let tokens = try key.signing(generatedKeyID: Self.generatedKeyID, generatedTeamID: Self.generatedTeamID)
        let (kid, team) = (tokens.keyID, tokens.teamID)
        let preset = try BudgetParameters.preset(named: budgetPreset)
        let target = try RunTarget(parsing: endpoint)
        let realTokens = try tokensFile.map(RealTokensFile.read)
        let baselineFigures = try baseline.figures()
        var workload = try ScenariosCommand.load(
            scenario,
            activities: activities ?? realTokens?.count ?? 1000,
            seed: seed
        )
        if let delivery { workload = workload.delivered(by: delivery) }
        let channelOrigin = try channelManagementOrigin(for: workload, target: target)
        if !noBudget {
            try MemoryCheck.ensureBudgetModel(
                of: workload.activities,
                needing: "the budget model of the accepted pushes",
                advice: "give fewer, share them out with --shard, or add --no-budget"
            )
        }
        if !dryRun { try OutputPath.ensureFolder(reportsDir, flag: "--reports-dir") }

        var load = LoadConfiguration(
            transport: .init(
                origin: endpoint ?? "",
                connections: connections,
                streamsPerConnection: streams,
                requestTimeoutMs: timeout.milliseconds,
                connectTimeoutMs: connectTimeout.milliseconds,
                pingIntervalMs: pingInterval.milliseconds,
                verifyPeer: !insecure
            ),
            transportKind: transport,
            scenario: workload,
            realTokens: realTokens,
            requests: requests,
            durationSeconds: duration?.seconds,
            warmupSeconds: warmup.seconds,
            pacing: target.isApple && !isPaced ? try .constantRate(perSecond: RunTarget.appleRateCap) : try pacing(),
            threads: threads,
            bundleID: bundleID,
            priorityOverride: priority,
            tokenPolicy: jwtMode,
            retryPolicy: RetryPolicy(maxRetries: retries, baseSeconds: retryBackoff.seconds),
            reconnectBackoff: ReconnectBackoff(
                baseSeconds: Double(reconnectBackoff.nanoseconds) / 1e9,
                capSeconds: Double(max(reconnectBackoffMax.nanoseconds, reconnectBackoff.nanoseconds)) / 1e9
            ),
            shard: try ShardSelection.resolve(option: shard, environment: ProcessInfo.processInfo.environment)
        )
        load.startAtUnix = try StartInstant.resolve(
            option: startAt,
            environment: ProcessInfo.processInfo.environment,
            now: Date().timeIntervalSince1970
        )
        if let instant = load.startAtUnix {
            Console.err(
                "starting the schedule at \(Date(timeIntervalSince1970: instant).formatted(.iso8601)) "
                    + "(in \(String(format: "%.1f", instant - Date().timeIntervalSince1970)) s), with every shard"
            )
        }
        if !practices.isEmpty {
            guard !target.isApple else {
                throw ValidationError("--practice makes sender mistakes on purpose: point it at a mock, not at Apple")
            }
            do {
                let parsed = try practices.map {
                    try SenderPractice(parsing: $0) { try? TimeSpan(parsing: $0).seconds }
                }
                try SenderPractice.apply(parsed, to: &load)
            } catch {
                throw ValidationError("--practice: \(error)")
            }
        }
        let sessionTarget: RunSession.Target
        if case .endpoint(let origin, let isApple) = target {
            load.transport.origin = origin
            load.transport.trustedCertificatesPEM = try caFile.map { try InputFile.bytes($0, what: "CA file") }
            if dryRun { return try printDryRun(load, keyID: kid, teamID: team) }
            let sharded = load.shard.count > 1
            if sharded && !isApple {
                Console.err("shard \(load.shard): other shards share the target, so its /stats are not compared here")
            }
            sessionTarget = .endpoint(comparesStats: !isApple && !sharded)
        } else {
            if dryRun {
                load.transport.origin = "https://<embedded mock>"
                return try printDryRun(load, keyID: kid, teamID: team)
            }
            sessionTarget = .embeddedMock(tokenHygiene: try tokenHygiene.hygiene(), threads: mockThreads)
        }
        var session = RunSession(
            load: load,
            target: sessionTarget,
            tokens: tokens,
            budget: noBudget ? nil : preset.parameters,
            budgetClock: budgetClock
        )
        session.channelOrigin = channelOrigin
        let runID = RunContext.makeRunID(startingAt: load.startAtUnix)
        let live = LiveMetrics()
        let metrics = try metricsPort.map { port in
            try startMetrics(on: port, runID: runID, load: load, live: live)
        }
        defer { metrics?.stop() }

        let shardActivities = load.shardActivities
        Console.err(
            "sending the \(workload.name) scenario's pushes to "
                + (load.shard.count > 1
                    ? "activities \(shardActivities.lowerBound)..<\(shardActivities.upperBound) of \(workload.activities) (shard \(load.shard))"
                    : "\(workload.activities) activities")
                + (load.shardRequests.map { " (at most \($0))" } ?? "")
                + ", \(load.pacing.label), from \(threads) worker(s) "
                + "over \(connections) connection(s) × \(streams) streams to "
                + (load.transport.origin.isEmpty ? "the embedded mock" : load.transport.origin)
        )
        if let cap = load.shardRequests, let held = try? load.pushesHeld(), held < cap {
            let activitiesNeeded = (workload.activities * cap + held - 1) / max(held, 1)
            Console.err(
                "note: the scenario holds \(held) pushes, fewer than --requests \(cap)\(load.shard.count > 1 ? " (this shard's share)" : ""): "
                    + "the run ends after those; about --activities \(activitiesNeeded) would hold \(cap)"
            )
        }

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
            throw CommandLineError.runtime("\(error)")
        }
        display.finish()
        let result = outcome.result
        let serverCounts = outcome.serverCounts
        let targetDescription = outcome.targetDescription
        var context = RunContext(
            runID: runID + (load.shard.count > 1 ? "-shard-\(load.shard.index)-of-\(load.shard.count)" : ""),
            commandLine: CommandLine.arguments.joined(separator: " "),
            targetDescription: targetDescription,
            serverCounts: serverCounts,
            build: PushBench.build
        )
        context.practices = outcome.practices
        Console.out(SummaryTable.render(result, context: context))
        if let practices = outcome.practices { Console.out("sender doctor  \(practices.verdict)") }
        let budgetReport = outcome.budget.map {
            BudgetReport(
                result: $0.finish(
                    name: "accepted pushes of run \(context.runID)",
                    tookEveryEvent: result.tookEveryEvent
                ),
                recommendations: nil,
                parametersSource: preset.source,
                runID: context.runID,
                commandLine: context.commandLine
            )
        }
        if let budgetReport { Console.out(budgetReport.consoleLine) }
        do {
            let written = try ReportWriter.write(
                result,
                context: context,
                root: reportsDir,
                budget: budgetReport,
                comparison: try BaselineOption.compare(result, context: context, with: baselineFigures)
            )
            Console.out("report: \(written.htmlPath)")
        } catch {
            throw CommandLineError.runtime("\(error) (the summary above is complete)")
        }
        if let metrics { holdMetrics(metrics, stop: stop) }
        if let signal = trap.signal { throw ExitCode(ExitStatus.interrupted(by: signal)) }
        if !result.counts.isBalanced { throw CommandLineError("internal error: the run's books do not balance") }
        if result.nothingSucceeded || result.counts.sent == 0 { throw ExitCode(ExitStatus.nothingSucceeded) }
    }

    /// Starts `--metrics-port` before the run, so a port in use stops it before anything is sent.
    private func startMetrics(
        on port: Int,
        runID: String,
        load: LoadConfiguration,
        live: LiveMetrics
    ) throws
        -> MetricsEndpoint
    {
        let telemetry = RunTelemetry(
            run: runID,
            shard: load.shard.index,
            description: [
                ("shards", String(load.shard.count)), ("scenario", load.scenario.name), ("pacing", load.pacing.label),
                ("transport", load.transportKind.rawValue), ("version", PushBench.build.version),
            ],
            live: live
        )
        do {
            let endpoint = try telemetry.serve(host: metricsHost, port: port)
            Console.err("metrics: http://\(metricsHost):\(endpoint.port)/metrics (run \(runID))")
            return endpoint
        } catch {
            throw CommandLineError("--metrics-port: \(error)")
        }
    }

    /// `--metrics-hold`: keeps the final figures on `/metrics` for the next scrape; Ctrl-C ends it.
    private func holdMetrics(_ metrics: MetricsEndpoint, stop: StopFlag) {
        guard metricsHold.nanoseconds > 0, !stop.isSet else { return }
        Console.err("metrics: serving the final figures for \(metricsHold) more (--metrics-hold; Ctrl-C ends it)")
        let until = Date().addingTimeInterval(metricsHold.seconds)
        while Date() < until, !stop.isSet { Thread.sleep(forTimeInterval: min(0.1, until.timeIntervalSinceNow)) }
    }

    /// Whether any pacing option was given.
    private var isPaced: Bool { rate != nil || rateProfile != nil || timeScale != nil || burst != nil }

    /// `--dry-run`: the first requests, as the target would get them, bearer redacted.
    /// Where the run creates its broadcast channels: `nil` when it has none or the embedded mock
    /// serves them; Apple's api-manage-broadcast hosts only with --broadcast-on-apple.
    private func channelManagementOrigin(for workload: Scenario, target: RunTarget) throws -> String? {
        guard workload.cohorts.contains(where: { $0.delivery == .broadcast }) else { return nil }
        switch target {
        case .embeddedMock:
            return nil
        case .endpoint(let origin, isApple: true):
            guard broadcastOnApple else {
                throw CommandLineError(
                    "\(workload.name) broadcasts, which creates real channels on your app at Apple; "
                        + "add --broadcast-on-apple to do so, or --delivery token"
                )
            }
            return origin == RunTarget.sandbox
                ? "https://api-manage-broadcast.sandbox.push.apple.com:2195"
                : "https://api-manage-broadcast.push.apple.com:2196"
        case .endpoint:
            guard let channelEndpoint else {
                throw CommandLineError(
                    "\(workload.name) broadcasts: give the channel management API with --channel-endpoint "
                        + "https://host:port (pushbench mock --channel-port), or --delivery token"
                )
            }
            guard case .endpoint(let origin, _) = try? RunTarget(parsing: channelEndpoint),
                channelEndpoint.hasPrefix("https://")
            else {
                throw CommandLineError("--channel-endpoint must be https://host[:port], not '\(channelEndpoint)'")
            }
            return origin
        }
    }

    private func printDryRun(_ load: LoadConfiguration, keyID: String, teamID: String) throws {
        let requests = try LoadTest.preview(load, keyID: keyID, teamID: teamID, count: 3)
        Console.out(
            "dry run: the first \(requests.count) requests of \(load.scenario.name) (\(load.scenario.activities) activities, "
                + "\(load.pacing.label)); nothing is sent\n\n" + requests.joined(separator: "\n\n")
        )
    }

    /// The pacing the options ask for; a bad profile is one clear line, with the line number
    /// when it is a file's.
    private func pacing() throws -> Pacing {
        if let timeScale { return .scenarioTime(scale: timeScale) }
        if let burst, let kind = EventKind(rawValue: burst) { return .burst(kind) }
        if let rate { return try .constantRate(perSecond: rate) }
        guard let rateProfile else { return .closedLoop }
        guard FileManager.default.fileExists(atPath: rateProfile) || rateProfile.contains(":") else {
            throw CommandLineError(
                "--rate-profile \(rateProfile): no such file, and not a profile of SECONDS:RATE points either"
            )
        }
        let isFile = FileManager.default.fileExists(atPath: rateProfile)
        let text = isFile ? try InputFile.text(rateProfile, what: "--rate-profile") : rateProfile
        do {
            return .rate(try RateProfile(parsing: text))
        } catch {
            let line = error.line.map { isFile ? ":\($0)" : "" } ?? ""
            throw CommandLineError("--rate-profile \(rateProfile)\(line): \(error.message)")
        }
    }
}

extension ProviderTokenPolicy: ExpressibleByArgument {}

extension TransportKind: ExpressibleByArgument {}

extension BudgetClock: ExpressibleByArgument {}
extension Scenario.Delivery: ExpressibleByArgument {}
