import Wire

/// The faults a mock injects on purpose: latency, errors at a rate per reason, periodic stalls,
/// connection churn, per-token throttling and incidents on a timeline. Every draw comes from
/// `seed` and the push's arrival number, so a run against the mock is reproducible in its counts.
public struct FaultPlan: Sendable, Equatable {
    /// A device token answered 429 `TooManyRequests` after this many pushes within one window,
    /// as APNs throttles "too many consecutive requests to the same device token".
    public struct TokenRateLimit: Sendable, Equatable {
        /// Pushes a token may receive per window.
        public var pushes: Int
        /// The window, seconds; windows are counted from the mock's start.
        public var windowSeconds: Double

        /// Creates a limit.
        public init(pushes: Int, windowSeconds: Double) {
            self.pushes = pushes
            self.windowSeconds = windowSeconds
        }
    }

    /// The plan's name, when it came from a faults file (shown at start-up and in `/stats`).
    public var name: String?
    /// Added to every answer, without blocking the event loop.
    public var latency: InjectedLatency
    /// Latency for some push types instead of `latency` (a Live Activity update and a VoIP push
    /// need not meet the same service).
    public var latencyByPushType: [PushType: InjectedLatency]
    /// Share of otherwise valid pushes answered with each reason instead (429, 500, 503 …).
    public var errorRates: [APNsReason: Double]
    /// Stalls: in the last `seconds` of every `everySeconds` (counted from the mock's start)
    /// nothing is answered; the answers due then go out when the stall ends, as from a server
    /// that froze (wrk2's demonstration of coordinated omission).
    public var stall: (seconds: Double, everySeconds: Double)?
    /// Each connection is sent GOAWAY (`{"reason":"Shutdown"}`, as APNs sends when it closes a
    /// connection) after answering this many pushes, and closed a second later; every stream it
    /// had opened is still answered. Senders must reconnect and resend what was refused.
    public var goAwayAfter: Int?
    /// Each connection is reset (TCP RST, no TLS close_notify, no GOAWAY) after answering this
    /// many pushes, as when a host dies or a middlebox drops a connection: the streams still open
    /// are never answered, and senders must count them lost or send them again.
    public var resetAfter: Int?
    /// Per-token throttling, if any.
    public var tokenRateLimit: TokenRateLimit?
    /// Injected 429 and 503 answers carry `Retry-After` with this many seconds. Apple does not
    /// document APNs sending it, node-apn reads it (`docs/apns.md`): it lets the sender doctor
    /// tell a sender that waits as asked from one that does not.
    public var retryAfterSeconds: Int?
    /// Incidents on the mock's timeline.
    public var incidents: [Incident]
    /// Seed of every draw.
    public var seed: UInt64

    /// No faults.
    public static let none = FaultPlan()

    /// Creates a plan.
    public init(
        name: String? = nil,
        latency: InjectedLatency = .none,
        latencyByPushType: [PushType: InjectedLatency] = [:],
        errorRates: [APNsReason: Double] = [:],
        stall: (seconds: Double, everySeconds: Double)? = nil,
        goAwayAfter: Int? = nil,
        resetAfter: Int? = nil,
        tokenRateLimit: TokenRateLimit? = nil,
        retryAfterSeconds: Int? = nil,
        incidents: [Incident] = [],
        seed: UInt64 = 1
    ) {
        self.name = name
        self.latencyByPushType = latencyByPushType
        self.tokenRateLimit = tokenRateLimit
        self.retryAfterSeconds = retryAfterSeconds
        self.incidents = incidents
        self.goAwayAfter = goAwayAfter
        self.resetAfter = resetAfter
        self.latency = latency
        self.errorRates = errorRates
        self.stall = stall
        self.seed = seed
    }

    /// Whether the plan does anything.
    public var isEmpty: Bool {
        latency == .none && latencyByPushType.isEmpty && errorRates.isEmpty && stall == nil && goAwayAfter == nil
            && resetAfter == nil && tokenRateLimit == nil && retryAfterSeconds == nil && incidents.isEmpty
    }

    /// The reasons a plan may answer instead of 200.
    public static let injectableReasons = [
        APNsReason.tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    /// Parses an error rate, `ServiceUnavailable=0.01`.
    /// - Throws: `MockFaultError` naming the reasons that may be injected.
    public static func errorRate(parsing text: String) throws -> (APNsReason, Double) {
        let injectable = injectableReasons
        let parts = text.split(separator: "=").map(String.init)
        guard parts.count == 2, let reason = APNsReason(rawValue: parts[0]), injectable.contains(reason),
            let rate = Double(parts[1]), (0...1).contains(rate)
        else {
            throw MockFaultError(
                "error rate '\(text)': expected REASON=SHARE with a share from 0 to 1 and REASON one of "
                    + injectable.map(\.rawValue).joined(separator: ", ")
            )
        }
        return (reason, rate)
    }

    /// Parses a per-token limit, `10/60s` (10 pushes per token per minute).
    /// - Throws: `MockFaultError` for anything else.
    public static func tokenRateLimit(parsing text: String) throws -> TokenRateLimit {
        let parts = text.split(separator: "/").map(String.init)
        guard parts.count == 2, let pushes = Int(parts[0]), pushes >= 1,
            let window = try? InjectedLatency.micros(parts[1]) / 1e6, window > 0
        else {
            throw MockFaultError("token rate limit '\(text)': expected PUSHES/WINDOW, such as 10/60s")
        }
        return TokenRateLimit(pushes: pushes, windowSeconds: window)
    }

    /// Parses a stall, `1s/10s` (stall for 1 s out of every 10 s).
    /// - Throws: `MockFaultError` when the stall is not shorter than its period.
    public static func stall(parsing text: String) throws -> (seconds: Double, everySeconds: Double) {
        let parts = text.split(separator: "/").map(String.init)
        guard parts.count == 2 else {
            throw MockFaultError("stall '\(text)': expected FOR/EVERY, such as 1s/10s")
        }
        let (stalled, every) = (try InjectedLatency.micros(parts[0]) / 1e6, try InjectedLatency.micros(parts[1]) / 1e6)
        guard stalled > 0, stalled < every else {
            throw MockFaultError("stall '\(text)': the stall must be positive and shorter than its period")
        }
        return (stalled, every)
    }

    public static func == (lhs: FaultPlan, rhs: FaultPlan) -> Bool {
        lhs.name == rhs.name && lhs.latency == rhs.latency && lhs.latencyByPushType == rhs.latencyByPushType
            && lhs.tokenRateLimit == rhs.tokenRateLimit && lhs.incidents == rhs.incidents
            && lhs.errorRates == rhs.errorRates && lhs.seed == rhs.seed
            && lhs.goAwayAfter == rhs.goAwayAfter && lhs.resetAfter == rhs.resetAfter
            && lhs.stall?.seconds == rhs.stall?.seconds && lhs.stall?.everySeconds == rhs.stall?.everySeconds
    }
}
