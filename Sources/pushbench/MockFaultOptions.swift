import ArgumentParser
import Basics
import MockAPNs
import MockFaults
import Workload

/// How a mock misbehaves on purpose and which answers it gives by rule: its fault plan
/// (`--faults` and the single fault flags over it) and its token and topic rules. One group, so
/// every command that runs a mock offers the same flags with the same checks.
struct MockFaultOptions: ParsableArguments {
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

    func validate() throws {
        if let goAwayAfter, goAwayAfter < 1 { throw ValidationError("--goaway-after must be at least 1") }
        if let resetAfter, resetAfter < 1 { throw ValidationError("--reset-after must be at least 1") }
        if let retryAfter, retryAfter.nanoseconds % 1_000_000_000 != 0 {
            throw ValidationError("--retry-after \(retryAfter): Retry-After carries whole seconds")
        }
    }

    /// Whether any fault or answer rule was given.
    var isSet: Bool {
        faults != nil || latency != nil || !errorRates.isEmpty || stall != nil || goAwayAfter != nil
            || resetAfter != nil || retryAfter != nil || !tokenRules.isEmpty || tokenRateLimit != nil
            || unregisteredTokens != nil || !disallowedTopics.isEmpty || faultSeed != nil
    }

    /// Sets `configuration`'s faults and answer rules to these.
    func apply(to configuration: inout MockAPNsConfiguration) throws {
        let answers = try answerRules()
        configuration.tokenRules = answers.tokenRules
        configuration.unregisteredTokens = answers.unregisteredTokens
        configuration.disallowedTopics = answers.disallowedTopics
        configuration.faults = try plan()
    }

    /// The fault scenario of `--faults`, if any, with the single fault flags on top.
    func plan() throws -> FaultPlan {
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

    /// The answers given by rule rather than by the checks: token prefixes, listed tokens and apps.
    struct AnswerRules {
        let tokenRules: [TokenRule]
        let unregisteredTokens: Set<String>
        let disallowedTopics: Set<String>
    }

    /// `--token-rule`, `--unregistered-tokens` (read now) and `--disallowed-topic`.
    func answerRules() throws -> AnswerRules {
        AnswerRules(
            tokenRules: try tokenRules.map(TokenRule.init(parsing:)),
            unregisteredTokens: Set(
                try unregisteredTokens.map(DeviceTokensFile.read)?.map { String(decoding: $0, as: UTF8.self) } ?? []
            ),
            disallowedTopics: Set(disallowedTopics)
        )
    }
}
