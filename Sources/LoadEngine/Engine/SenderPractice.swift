import Transport

/// A mistake APNs senders make, which `pushbench run --practice` makes on purpose: so the
/// sender doctor (`pushbench mock --report`) is tested against senders whose mistakes are
/// known, and a team sees what one costs before making it.
///
/// Each name is the one the doctor's finding carries (`SenderPractices.Finding.practice`).
public enum SenderPractice: Sendable, Equatable, Hashable {
    /// Each worker signs and caches its own provider token (one per process or thread).
    case perWorkerTokens
    /// Each connection signs its own provider token when it opens.
    case tokenPerConnection
    /// Every push signs a new provider token (`--jwt-mode per-request`).
    case tokenPerPush
    /// The provider token is replaced every this many seconds, shorter than APNs' 20 minutes.
    case refresh(seconds: Double)
    /// The sender's clock is this many seconds ahead (negative: behind): tokens' `iat`, payload
    /// timestamps and `apns-expiration` all read it.
    case clockSkew(seconds: Double)
    /// A new connection for every push, closed once it is answered.
    case connectionPerPush
    /// One stream per connection: a push waits for the previous one's answer.
    case oneStream
    /// Refused pushes (429, 500, 503) are sent again at once, up to 3 times, whatever
    /// `Retry-After` says.
    case retryWithoutBackoff
    /// Every Live Activity event at priority 10.
    case allPriority10

    /// The names `--practice` takes, with their argument where they have one.
    public static let names = [
        "per-worker-tokens", "token-per-connection", "token-per-push", "refresh=DURATION", "clock-skew=DURATION",
        "connection-per-push", "one-stream", "retry-without-backoff", "all-priority-10",
    ]

    /// Parses `per-worker-tokens`, `refresh=90s`, `clock-skew=-10m`, …; `seconds` reads a
    /// duration.
    /// - Throws: `PracticeError` naming the accepted spellings.
    public init(parsing text: String, seconds: (String) -> Double?) throws(PracticeError) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        let argument = parts.count == 2 ? parts[1] : nil
        switch (parts.first ?? "", argument) {
        case ("per-worker-tokens", nil): self = .perWorkerTokens
        case ("token-per-connection", nil): self = .tokenPerConnection
        case ("token-per-push", nil): self = .tokenPerPush
        case ("connection-per-push", nil): self = .connectionPerPush
        case ("one-stream", nil): self = .oneStream
        case ("retry-without-backoff", nil): self = .retryWithoutBackoff
        case ("all-priority-10", nil): self = .allPriority10
        case ("refresh", let value?):
            guard let interval = seconds(value), interval > 0 else {
                throw PracticeError("refresh=\(value): expected a duration such as 90s or 5m")
            }
            self = .refresh(seconds: interval)
        case ("clock-skew", let value?):
            let negative = value.hasPrefix("-")
            guard let magnitude = seconds(negative ? String(value.dropFirst()) : value), magnitude > 0 else {
                throw PracticeError(
                    "clock-skew=\(value): expected seconds ahead, such as 120s, or behind, such as -10m"
                )
            }
            self = .clockSkew(seconds: negative ? -magnitude : magnitude)
        default:
            throw PracticeError("unknown practice '\(text)'; one of " + Self.names.joined(separator: ", "))
        }
    }

    /// The practice's name, as the doctor's finding carries it.
    public var name: String {
        switch self {
        case .perWorkerTokens: "per-worker-tokens"
        case .tokenPerConnection: "token-per-connection"
        case .tokenPerPush: "token-per-push"
        case .refresh: "refresh"
        case .clockSkew: "clock-skew"
        case .connectionPerPush: "connection-per-push"
        case .oneStream: "one-stream"
        case .retryWithoutBackoff: "retry-without-backoff"
        case .allPriority10: "all-priority-10"
        }
    }

    /// The practice as given, with its argument.
    public var description: String {
        switch self {
        case .refresh(let seconds): "refresh=\(seconds.formatted())s"
        case .clockSkew(let seconds): "clock-skew=\(seconds.formatted())s"
        default: name
        }
    }

    /// Applies the practices that are a setting of the run (the rest act in the workers).
    /// - Throws: `PracticeError` when the run's transport cannot make the mistake.
    public static func apply(
        _ practices: [SenderPractice],
        to configuration: inout LoadConfiguration
    ) throws(PracticeError) {
        configuration.practices = practices
        for practice in practices {
            switch practice {
            case .tokenPerPush: configuration.tokenPolicy = .perRequest
            case .clockSkew(let seconds):
                let clock = configuration.wallClock
                configuration.wallClock = WallClock { clock.now() + seconds }
            case .connectionPerPush: configuration.transport.requestsPerConnection = 1
            case .oneStream: configuration.transport.streamsPerConnection = 1
            case .retryWithoutBackoff:
                configuration.retryPolicy = RetryPolicy(maxRetries: 3, base: .zero, cap: .zero)
            case .allPriority10: configuration.priorityOverride = 10
            case .perWorkerTokens, .tokenPerConnection, .refresh: break
            }
            if practice == .connectionPerPush || practice == .tokenPerConnection,
                configuration.transportKind != .nghttp2
            {
                throw PracticeError(
                    "\(practice.name) needs --transport nghttp2, which opens its own connections"
                )
            }
        }
    }
}

/// A `--practice` that cannot be parsed or applied.
public struct PracticeError: Error, CustomStringConvertible {
    /// What is wrong, in words.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
