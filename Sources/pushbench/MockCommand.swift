import ArgumentParser
import Foundation
import MockAPNs
import Reports
import Synchronization
import Wire
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// `pushbench mock`: the mock APNs on its own, for curl, h2load or another sender.
struct MockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock",
        abstract: "Run the mock APNs server (HTTP/2 over TLS, ALPN h2) until Ctrl-C.",
        discussion: """
            Answers `POST /3/device/<token>` as APNs does (docs/mock.md lists the checks and their order) and `GET /stats` with its counters as JSON; --admin-port serves them over plain HTTP too, with `GET /metrics` for Prometheus. Without --tls-cert/--tls-key it makes a self-signed \
            certificate for localhost, 127.0.0.1 and ::1 in memory; --cert-out writes that certificate (public, \
            no key) so clients can trust it:

              pushbench mock --port 2197 --cert-out /tmp/mock.pem
              curl --http2 --cacert /tmp/mock.pem https://127.0.0.1:2197/stats

            Without --auth-key, provider tokens are checked for form only: a missing token gets 403 \
            MissingProviderToken, a malformed one 403 InvalidProviderToken, and any well-formed ES256 token \
            is accepted.

            --unregistered, --expiring and --other-topic make a share of device tokens dead or misfiled, chosen by a \
            hash of the token: `pushbench tokens` and `pushbench run` with the same fractions meet the same ones.
            """
    )

    @Option(help: "Address to listen on (loopback by default).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one. 2197 is APNs' alternative port.")
    var port = 2197

    @Option(
        name: .customLong("admin-port"),
        help:
            "Also serve GET /stats (JSON) and GET /metrics (Prometheus text) over plain HTTP/1.1 on this port of --host; 0 picks a free one."
    )
    var adminPort: Int?

    @Option(name: .customLong("tls-cert"), help: "TLS certificate chain (PEM). Needs --tls-key.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "TLS private key (PEM) for --tls-cert.")
    var tlsKey: String?

    @Option(
        name: .customLong("channel-port"),
        help:
            "Also serve broadcast channel management (create, read, delete, list; APNs' api-manage-broadcast hosts use 2195 and 2196) over HTTP/2 and TLS on this port of --host; 0 picks a free one. Broadcasts themselves go to --port."
    )
    var channelPort: Int?

    @Option(
        name: .customLong("subscribers-per-channel"),
        help:
            "Simulated devices of a channel no accepted start subscribed to (input-push-channel): an accepted broadcast counts this many deliveries."
    )
    var subscribersPerChannel = 1000

    @Option(
        name: .customLong("channel-rate"),
        help: ArgumentHelp(
            "Broadcasts a second each channel takes; more get 429 TooManyRequests (default: no limit).",
            discussion:
                "Apple calls its broadcast limits dynamic; its forum guidance is about one update a second per channel (--channel-rate 1)."
        )
    )
    var channelRate: Double?

    @Option(
        name: .customLong("fanout-latency"),
        help: ArgumentHelp(
            "How long after an accepted broadcast each subscriber has it, as --latency takes it (default: none, at once).",
            discussion:
                "Apple publishes no figure, so this is your assumption; /stats then says, per broadcast, when its last subscriber had it (the median of the largest of its subscribers' draws)."
        )
    )
    var fanoutLatency: String?

    @Option(
        name: .customLong("channel-limit"),
        help: "Channels an app may hold, as Apple's limit per app per environment."
    )
    var channelLimit = 10_000

    @Option(name: .customLong("cert-out"), help: "Write the generated certificate (no key) here, mode 0600.")
    var certOut: String?

    @Option(name: .customLong("auth-key"), help: "Public key (PEM) or Apple .p8 whose provider tokens are accepted.")
    var authKey: String?

    @Option(name: .customLong("key-id"), help: "Key ID (kid) of --auth-key.")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Team ID (iss) of --auth-key.")
    var teamID: String?

    @Option(
        help: ArgumentHelp(
            "A JSON file of keys whose provider tokens are accepted, each with its team, environment and topics (Apple's 2025 scoped keys); with --auth-key too, both count.",
            discussion: """
                {"keys": [{"key_id": "ABC123DEFG", "team_id": "DEF123GHIJ", "public_key": "key.pem", \
                "environment": "production", "topics": ["com.example.app"]}]}. public_key is a PEM public key or .p8, \
                relative to the file; environment is production, development or both (the default, an older key); \
                topics makes the key topic-specific. A scoped key in the other environment gets 403 \
                BadEnvironmentKeyIdInToken; a connection that began with a scoped key answers any other key 403 \
                UnrelatedKeyIdInToken; a topic-specific key used for another app gets 403 InvalidProviderToken.
                """
        )
    )
    var keys: String?

    @Option(help: "SETTINGS_MAX_CONCURRENT_STREAMS after a connection's first valid provider token.")
    var streams = 1000

    @Option(
        name: .customLong("streams-before-token"),
        help: "The limit a new connection starts with, as APNs does with token auth (set it to --streams to skip)."
    )
    var streamsBeforeToken = 1

    @Flag(
        name: .customLong("drop-streams-after-rejection"),
        help:
            "Drop a connection's stream limit to 1 after a rejected push until one is accepted, as APNs was seen doing."
    )
    var dropStreamsAfterRejection = false

    @Option(help: "The APNs environment to play: production, or development (adds apns-unique-id to answers).")
    var environment: MockAPNsConfiguration.Environment = .production

    @Option(help: "Event-loop threads.")
    var threads = 1

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Connections open at once, TLS handshakes included; more are closed as soon as accepted.",
            discussion:
                "Bounds the mock's memory (an idle connection costs it about 47 KiB). The mock raises its open-file limit to the system's hard limit and lowers this to fit."
        )
    )
    var maxConnections = ConnectionLimits().maxConnections

    @Option(
        name: .customLong("handshake-timeout"),
        help:
            "How long a new connection may take to finish TLS and ALPN before it is closed, half-open TLS (2s)."
    )
    var handshakeTimeout = TimeSpan(seconds: 10)

    @OptionGroup(title: "Token hygiene")
    var tokenHygiene: TokenHygieneOptions

    @Option(
        help: ArgumentHelp(
            "A JSON fault scenario to replay: latency (also per push type), error rates, per-token throttling and incidents on a timeline (errors, stall, hang, goaway, reset, slow_tls_accept). The single fault flags below override its values.",
            discussion: """
                {"name": "storm", "seed": 7, "latency": "lognormal:20ms,0.5", \
                "latency_by_push_type": {"liveactivity": "empirical:50=8ms,99=40ms,100=120ms"}, \
                "error_rates": {"ServiceUnavailable": 0.01}, "token_rate_limit": {"pushes": 10, "window": "60s"}, \
                "incidents": [{"kind": "errors", "at": "10s", "for": "5s", "reason": "ServiceUnavailable", "share": 0.5}, \
                {"kind": "hang", "at": "30s", "for": "3s"}, {"kind": "goaway", "at": "40s"}, \
                {"kind": "slow_tls_accept", "at": "60s", "for": "10s", "delay": "2s"}]}. \
                Times count from the mock's start; an incident without "for" lasts until the mock stops. \
                docs/mock.md describes each kind; Benchmarks/faults/ has examples.
                """
        )
    )
    var faults: String?

    @Option(
        help:
            "Latency added to every answer: none, fixed:20ms, uniform:10ms-30ms, normal:20ms,5ms, lognormal:20ms,0.5, empirical:50=8ms,99=40ms,100=120ms (percentiles rising to 100)."
    )
    var latency: String?

    @Option(
        name: .customLong("error-rate"),
        help:
            "Answer this share of valid pushes with an error instead, REASON=SHARE (TooManyRequests, InternalServerError, ServiceUnavailable, Shutdown); repeatable."
    )
    var errorRates: [String] = []

    @Option(
        help:
            "Stall FOR/EVERY, such as 1s/10s: nothing is answered in the last FOR of every EVERY; held answers go out at its end."
    )
    var stall: String?

    @Option(
        name: .customLong("goaway-after"),
        help:
            "Send each connection GOAWAY {\"reason\":\"Shutdown\"} after this many answers, and close it a second later."
    )
    var goAwayAfter: Int?

    @Option(
        name: .customLong("reset-after"),
        help:
            "Reset each connection (TCP RST, no GOAWAY) after this many answers; the streams still open are never answered."
    )
    var resetAfter: Int?

    @Option(
        name: .customLong("retry-after"),
        help:
            "Answer injected 429 and 503 errors with Retry-After, whole seconds (30s, 2m) (APNs does not document sending it), so mock --report can tell whether the sender waits as asked."
    )
    var retryAfter: TimeSpan?

    @Flag(
        name: .customLong("strict-content"),
        help:
            "Refuse (400 MockRejectedLiveActivity, the mock's own reason) a Live Activity push a device would drop, such as one without event, timestamp or content-state; APNs accepts those with 200, and so does the mock without this switch, counting them in live_activity_would_drop."
    )
    var strictContent = false

    @Option(
        name: .customLong("token-rule"),
        help: ArgumentHelp(
            "PREFIX=REASON: pushes to device tokens starting with PREFIX (lowercase hex) get REASON once every other check passed, such as 410=Unregistered (repeatable; the first match wins).",
            discussion: "REASON is one of " + TokenRule.reasons.map(\.rawValue).joined(separator: ", ") + "."
        )
    )
    var tokenRules: [String] = []

    @Option(
        name: .customLong("token-rate-limit"),
        help:
            "PUSHES/WINDOW, such as 10/60s: a device token's pushes beyond PUSHES in one window get 429 TooManyRequests (windows count from the mock's start)."
    )
    var tokenRateLimit: String?

    @Option(
        name: .customLong("unregistered-tokens"),
        help:
            "A file of device tokens (hex, one per line) that get 410 Unregistered, with the mock's start as the 410's timestamp, once every other check passed."
    )
    var unregisteredTokens: String?

    @Option(
        name: .customLong("disallowed-topic"),
        help: "An app (bundle ID) whose device pushes get 400 TopicDisallowed, whatever their push type (repeatable)."
    )
    var disallowedTopics: [String] = []

    @Option(name: .customLong("fault-seed"), help: "Seed of the injected latency and errors (default 1).")
    var faultSeed: UInt64?

    @Option(
        help: ArgumentHelp(
            "Record every answered push to this CSV file (what arrived and the answer); `pushbench budget --traffic` replays the accepted ones.",
            discussion: "Columns: \(TrafficRecord.header). Written in blocks; complete when the mock stops."
        )
    )
    var record: String?

    @Option(
        help: ArgumentHelp(
            "When the mock stops, write the server's view of the traffic it received to this folder: arrivals per second, priority mix, refusals, per-token cadence (CSV and report.html), and the sender doctor's findings on the sender's practices (practices.json).",
            discussion:
                "Records to DIR/traffic.csv unless --record names another file; the report is built from that recording, held in memory (about 200 bytes a push)."
        )
    )
    var report: String?

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if authKey != nil && (keyID == nil || teamID == nil) {
            throw ValidationError("--auth-key needs --key-id and --team-id")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        if let adminPort, !(0...65535).contains(adminPort) {
            throw ValidationError("--admin-port must be 0 to 65535")
        }
        if let channelPort, !(0...65535).contains(channelPort) {
            throw ValidationError("--channel-port must be 0 to 65535")
        }
        if let channelRate, !(channelRate > 0 && channelRate.isFinite) {
            throw ValidationError("--channel-rate must be a positive number of broadcasts a second")
        }
        guard subscribersPerChannel >= 0, channelLimit >= 1 else {
            throw ValidationError("--subscribers-per-channel must be at least 0 and --channel-limit at least 1")
        }
        guard streams > 0, threads > 0, streamsBeforeToken > 0 else {
            throw ValidationError("--streams, --streams-before-token and --threads must be at least 1")
        }
        guard threads <= 256 else { throw ValidationError("--threads may be at most 256") }
        if let goAwayAfter, goAwayAfter < 1 { throw ValidationError("--goaway-after must be at least 1") }
        if let retryAfter, retryAfter.nanoseconds % 1_000_000_000 != 0 {
            throw ValidationError("--retry-after \(retryAfter): Retry-After carries whole seconds")
        }
        if let resetAfter, resetAfter < 1 { throw ValidationError("--reset-after must be at least 1") }
        guard maxConnections >= 1, handshakeTimeout.nanoseconds > 0, handshakeTimeout.seconds <= 3600 else {
            throw ValidationError(
                "--max-connections must be at least 1, and --handshake-timeout above 0 and at most 3600"
            )
        }
    }

    /// `--max-connections`, lowered to what the open-file limit allows once raised as far as
    /// the system lets it (a connection takes a file descriptor; 64 are kept for the rest).
    func connectionLimits() -> ConnectionLimits {
        let files = OpenFileLimit.raise()
        var limits = ConnectionLimits(
            maxConnections: maxConnections,
            handshakeTimeout: .nanoseconds(Int64(handshakeTimeout.nanoseconds))
        )
        if files - 64 < maxConnections {
            limits.maxConnections = max(1, files - 64)
            Console.err(
                "warning: the open-file limit is \(files), so at most \(limits.maxConnections) connections (not \(maxConnections))"
            )
        }
        return limits
    }

    /// The `--token-rule` flags as rules.
    func parsedTokenRules() throws -> [TokenRule] {
        try tokenRules.map(TokenRule.init(parsing:))
    }

    /// The fault scenario of `--faults`, if any, with the single fault flags on top.
    func faultPlan() throws -> FaultPlan {
        var plan = try faults.map(FaultPlan.load) ?? FaultPlan()
        if let latency { plan.latency = try InjectedLatency(parsing: latency) }
        for (reason, rate) in try errorRates.map(FaultPlan.errorRate(parsing:)) { plan.errorRates[reason] = rate }
        if let stall { plan.stall = try FaultPlan.stall(parsing: stall) }
        plan.goAwayAfter = goAwayAfter ?? plan.goAwayAfter
        plan.resetAfter = resetAfter ?? plan.resetAfter
        plan.retryAfterSeconds = retryAfter.map { Int($0.seconds) } ?? plan.retryAfterSeconds
        if let tokenRateLimit { plan.tokenRateLimit = try FaultPlan.tokenRateLimit(parsing: tokenRateLimit) }
        plan.seed = faultSeed ?? plan.seed
        return plan
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        // Ctrl-C is caught from the start: one that arrives while the server starts stops it as
        // soon as it is up, instead of killing the process mid-start.
        let running = RunningServer()
        let trap = InterruptTrap { running.shutdown() }
        defer { _ = trap }
        let faults = try faultPlan()
        var keys: [ProviderKey] = []
        if let authKey, let keyID, let teamID {
            keys.append(ProviderKey(keyID: keyID, teamID: teamID, publicKey: try KeyFile.verificationKey(authKey)))
        }
        if let path = self.keys { keys += try ProviderKeyFile.load(path) }
        var identity: TLSIdentity? = nil
        if let tlsCert, let tlsKey {
            identity = TLSIdentity(
                certificatePEM: try InputFile.bytes(tlsCert, what: "certificate"),
                privateKeyPEM: try InputFile.bytes(tlsKey, what: "TLS key")
            )
        }
        if let report { try OutputPath.ensureFolder(report, flag: "--report") }
        if let record { try OutputPath.ensureFile(record, flag: "--record") }
        if let certOut { try OutputPath.ensureFile(certOut, flag: "--cert-out") }
        let recording = record ?? report.map { ($0 as NSString).appendingPathComponent("traffic.csv") }
        let recorder = try recording.map { path in
            do {
                return try PushRecorder(path: path)
            } catch {
                throw CommandLineError("\(error)")
            }
        }
        let rules = try parsedTokenRules()
        let unregistered = try unregisteredTokens.map { path in
            Set(try RealTokensFile.read(path).map { String(decoding: $0, as: UTF8.self) })
        }
        let limits = connectionLimits()
        var configuration = MockAPNsConfiguration(
            host: host,
            port: port,
            adminPort: adminPort,
            channelPort: channelPort,
            channelLimit: channelLimit,
            subscribersPerChannel: subscribersPerChannel,
            identity: identity,
            keys: keys,
            maxConcurrentStreams: streams,
            streamsBeforeToken: streamsBeforeToken,
            dropStreamsAfterRejection: dropStreamsAfterRejection,
            environment: environment,
            tokenHygiene: try tokenHygiene.hygiene(),
            tokenRules: rules,
            unregisteredTokens: unregistered ?? [],
            disallowedTopics: Set(disallowedTopics),
            threads: threads,
            recorder: recorder,
            faults: faults,
            strictLiveActivityContent: strictContent,
            limits: limits
        )
        configuration.channelBroadcastsPerSecond = channelRate
        if let fanoutLatency {
            do {
                configuration.broadcastFanout = try InjectedLatency(parsing: fanoutLatency)
            } catch {
                throw CommandLineError("--fanout-latency \(fanoutLatency): \(error)")
            }
        }
        let server: MockAPNsServer
        do {
            server = try MockAPNsServer.start(configuration)
        } catch {
            throw CommandLineError.runtime("the mock could not start: \(error)")
        }
        if let certOut {
            do {
                try KeyFile.writePrivately(server.certificatePEM, to: certOut)
            } catch {
                server.shutdown()
                throw CommandLineError("cannot write the certificate to \(certOut): \(error.localizedDescription)")
            }
        }
        Console.out(
            "mock APNs listening on https://\(host):\(server.port) (HTTP/2 over TLS 1.2+: ALPN h2, or prior knowledge without ALPN)"
        )
        if let channels = server.channelPort {
            Console.out(
                "broadcast channels: https://\(host):\(channels)/1/apps/<bundle>/channels; broadcasts: POST /4/broadcasts/apps/<bundle> on the push port"
            )
        }
        if let admin = server.adminPort {
            Console.out("admin: http://\(host):\(admin)/stats (JSON) and http://\(host):\(admin)/metrics (Prometheus)")
        }
        if keys.isEmpty {
            Console.out(
                "provider tokens: NOT verified (no --auth-key or --keys); any well-formed ES256 token is accepted"
            )
        }
        for key in keys {
            Console.out(
                "provider tokens: verifying ES256 signatures of key \(key.keyID) for team \(key.teamID), \(key.scope)"
            )
        }
        if let certOut { Console.out("certificate written to \(certOut) (use curl --cacert \(certOut))") }
        if let recording { Console.out("recording answered pushes to \(recording)") }
        if !faults.isEmpty {
            Console.out("injecting faults" + (faults.name.map { " '\($0)'" } ?? "") + " (seed \(faults.seed)):")
            for line in faults.summary { Console.out("  " + line) }
        }
        Console.out(
            "limits: \(limits.maxConnections) connections, TLS and ALPN within \(handshakeTimeout), \(streams) streams a connection, \(ConnectionLimits.maxHeaderListBytes)-byte header lists, \(ConnectionLimits.keptBodyBytes) body bytes kept a stream"
        )
        Console.out("counters: GET /stats · stop with Ctrl-C")

        running.started(server)
        try server.waitUntilClosed()
        let stats = server.stats.snapshot()
        Console.out(
            "stopped: \(stats.pushes) pushes answered, \(stats.accepted) accepted, \(stats.connectionsAccepted) connections"
        )
        if stats.broadcasts > 0 {
            let accepted = max(stats.broadcastsAccepted, 1)
            Console.out(
                "broadcasts: \(stats.broadcastsAccepted) of \(stats.broadcasts) accepted, \(stats.broadcastDeliveries) deliveries; "
                    + String(
                        format: "last subscriber after %.1f ms on average, %.1f ms at most (fan-out model)",
                        Double(stats.broadcastLastDeliveryMicros) / Double(accepted) / 1000,
                        Double(stats.broadcastLastDeliveryMicrosMax) / 1000
                    )
            )
        }
        if stats.connectionsWithoutALPN > 0 {
            Console.out(
                "served HTTP/2 by prior knowledge to \(stats.connectionsWithoutALPN) connections that offered no ALPN, as APNs does"
            )
        }
        for (title, counts) in [
            ("accepted although irregular (docs/mock-conformance.md)", stats.acceptedIrregular),
            ("accepted, but a device would drop them", stats.liveActivityWouldDrop),
        ] where !counts.isEmpty {
            Console.out(
                "\(title): " + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            )
        }
        if let recorder, let recording {
            Console.out("recorded \(try recorder.close()) answered pushes to \(recording)")
        }
        if let report, let recording {
            do {
                let irregular = [
                    ("accepted_irregular", stats.acceptedIrregular),
                    ("live_activity_would_drop", stats.liveActivityWouldDrop),
                ].flatMap { counter, counts in
                    counts.sorted { $0.key < $1.key }.map {
                        TrafficReport.Irregular(counter: counter, kind: $0.key, pushes: $0.value)
                    }
                }
                let records = try TrafficFile.read(recording)
                var traffic = TrafficReport(records: records, source: recording, irregular: irregular)
                let practices = SenderPractices(
                    records: records,
                    streamsAdvertised: streams,
                    connectionsAccepted: stats.connectionsAccepted
                )
                traffic.practices = practices
                if stats.broadcasts > 0 {
                    traffic.broadcasts = TrafficReport.Broadcasts(
                        answered: stats.broadcasts,
                        accepted: stats.broadcastsAccepted,
                        deliveries: stats.broadcastDeliveries,
                        lastDeliveryMicrosTotal: stats.broadcastLastDeliveryMicros,
                        lastDeliveryMicrosMax: stats.broadcastLastDeliveryMicrosMax
                    )
                }
                Console.out("traffic report: \(try traffic.write(to: report))")
                Console.out("sender doctor: \(practices.verdict) (practices.json)")
            } catch {
                throw CommandLineError.runtime("the traffic report could not be written: \(error)")
            }
        }
    }
}

/// The mock server once it has started, for a signal handler that may run before it has.
private final class RunningServer: Sendable {
    private let state = Mutex<(server: MockAPNsServer?, stopRequested: Bool)>((nil, false))

    /// Records the started server, and stops it at once if a stop came first.
    func started(_ server: MockAPNsServer) {
        let stopNow = state.withLock { state in
            state.server = server
            return state.stopRequested
        }
        if stopNow { server.shutdown() }
    }

    /// Stops the server, or has it stopped as soon as it starts.
    func shutdown() {
        let server = state.withLock { state in
            state.stopRequested = true
            return state.server
        }
        server?.shutdown()
    }
}

extension MockAPNsConfiguration.Environment: ExpressibleByArgument {}
