import ArgumentParser
import MockAPNs
import Wire
import Workload

/// How the mock behaves, whoever started it: the keys it accepts beyond `--auth-key`, its
/// stream limits, environment, threads and connection limits, the token hygiene, the content
/// checks, and the faults and answer rules. One group, so `mock` and `profile` run the same mock.
struct MockServerOptions: ParsableArguments {
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

    @Option(
        help: ArgumentHelp(
            "Event-loop threads: each an epoll loop that accepts from every listener and serves TLS (OpenSSL) and HTTP/2 (libnghttp2).",
            discussion:
                "Against nginx on the same machine, at 1 and 2 threads, the mock spent 0.65-0.88 times nginx's CPU a request (Benchmarks/mock-vs-nginx.sh in the source)."
        )
    )
    var threads = 1

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Connections open at once, TLS handshakes included; more are closed as soon as accepted.",
            discussion:
                "Bounds the mock's memory (an idle connection costs it about 42 KiB). The mock raises its open-file limit to the system's hard limit and lowers this to fit."
        )
    )
    var maxConnections = ConnectionLimits().maxConnections

    @Option(
        name: .customLong("handshake-timeout"),
        help:
            "How long a new connection may take to finish TLS and ALPN before it is closed: a client that opens TCP and never completes TLS holds a connection no longer."
    )
    var handshakeTimeout = TimeSpan(seconds: 10)

    @OptionGroup(title: "Token hygiene")
    var tokenHygiene: TokenHygieneOptions

    @Flag(
        name: .customLong("strict-content"),
        help:
            "Refuse (400 MockRejectedLiveActivity, the mock's own reason) a Live Activity push a device would drop, such as one without event, timestamp or content-state; APNs accepts those with 200, and so does the mock without this switch, counting them in live_activity_would_drop."
    )
    var strictContent = false

    @OptionGroup(title: "Faults and answer rules")
    var faults: MockFaultOptions

    func validate() throws {
        guard streams > 0, threads > 0, streamsBeforeToken > 0 else {
            throw ValidationError("--streams, --streams-before-token and --threads must be at least 1")
        }
        guard threads <= 256 else { throw ValidationError("--threads may be at most 256") }
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

    /// The mock these options describe, listening on `host:port` with `identity` (or a
    /// self-signed certificate), accepting `key`'s tokens and `--keys`', recording to `recorder`.
    func configuration(
        host: String,
        port: Int,
        key: ProviderKey?,
        identity: TLSIdentity? = nil,
        recorder: PushRecorder? = nil
    ) throws -> MockAPNsConfiguration {
        var keys = key.map { [$0] } ?? []
        if let path = self.keys { keys += try ProviderKeyFile.load(path) }
        var configuration = MockAPNsConfiguration(
            host: host,
            port: port,
            identity: identity,
            keys: keys,
            maxConcurrentStreams: streams,
            streamsBeforeToken: streamsBeforeToken,
            dropStreamsAfterRejection: dropStreamsAfterRejection,
            environment: environment,
            tokenHygiene: try tokenHygiene.hygiene(),
            threads: threads,
            recorder: recorder,
            strictLiveActivityContent: strictContent,
            limits: connectionLimits()
        )
        try faults.apply(to: &configuration)
        return configuration
    }
}
