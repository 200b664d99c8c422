extension FaultPlan {
    /// The plan in words, a line per fault, for the mock's start-up lines.
    public var summary: [String] {
        var lines = ["latency \(latency)"]
        for (pushType, latency) in latencyByPushType.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            lines.append("latency \(latency) for \(pushType.rawValue) pushes")
        }
        for (reason, rate) in errorRates.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            lines.append("\(reason.rawValue) for \((rate * 100).formatted())% of valid pushes")
        }
        if let stall {
            lines.append("stall for \(stall.seconds.formatted()) s of every \(stall.everySeconds.formatted()) s")
        }
        if let goAwayAfter { lines.append("GOAWAY after \(goAwayAfter) answers per connection") }
        if let resetAfter { lines.append("reset after \(resetAfter) answers per connection") }
        if let tokenRateLimit {
            lines.append(
                "429 TooManyRequests past \(tokenRateLimit.pushes) pushes per token per \(tokenRateLimit.windowSeconds.formatted()) s"
            )
        }
        if let retryAfterSeconds { lines.append("Retry-After: \(retryAfterSeconds) on injected 429 and 503 answers") }
        lines += incidents.map(\.summary)
        return lines
    }
}

extension Incident {
    /// The incident in words: what, when, for how long.
    var summary: String {
        let when = "at \(atSeconds.formatted()) s"
        let span = kind.isMoment ? "" : forSeconds.map { " for \($0.formatted()) s" } ?? " until the mock stops"
        switch kind {
        case .errors(let reason, let share):
            return "\(reason.rawValue) for \((share * 100).formatted())% of valid pushes \(when)\(span)"
        case .stall: return "stall (answers held) \(when)\(span)"
        case .hang: return "hang (answers never sent) \(when)\(span)"
        case .goAway: return "GOAWAY to every open connection \(when)"
        case .reset: return "reset of every open connection \(when)"
        case .slowTLSAccept(let delay): return "TLS handshakes held \(delay.formatted()) s \(when)\(span)"
        }
    }
}
