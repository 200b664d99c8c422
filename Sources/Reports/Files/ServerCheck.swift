import LoadEngine

/// Compares the client's books with the mock's.
public struct ServerCheck: Sendable {
    /// The client's result.
    public let result: RunResult
    /// The server's counts.
    public let server: ServerCounts

    /// Creates a comparison.
    public init(result: RunResult, server: ServerCounts) {
        self.result = result
        self.server = server
    }

    /// Whether both sides agree on answered, accepted and rejected pushes, reason by reason.
    public var matches: Bool { differences.isEmpty }

    /// The answers the client counted, its warmup's included: what the server's `pushes` counts.
    public var clientAnswered: Int {
        result.counts.succeeded + result.warmupCounts.succeeded + result.counts.rejected + result.warmupCounts.rejected
    }

    /// Each disagreement in words, empty when the books agree.
    public var differences: [String] {
        // The server saw the warmup too.
        var found: [String] = []
        let succeeded = result.counts.succeeded + result.warmupCounts.succeeded
        let answered = clientAnswered
        let rejectedByReason = result.rejectedByReason.merging(result.warmupRejectedByReason, uniquingKeysWith: +)
        if server.pushes != answered {
            found.append("server answered \(server.pushes), client saw \(answered) answers")
        }
        if server.accepted != succeeded {
            found.append("server accepted \(server.accepted), client counted \(succeeded) successes")
        }
        if server.rejectedByReason != rejectedByReason {
            found.append("rejections by reason differ: server \(server.rejectedByReason), client \(rejectedByReason)")
        }
        return found
    }
}
