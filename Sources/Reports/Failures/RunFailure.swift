import LoadEngine
import Transport

/// What a run in which no push succeeded says before anything else: that it failed, how its
/// pushes ended, the failure that ended most of them in the transport's own words, and what to
/// try. A failed run must not look like a slow one.
public struct RunFailure: Sendable {
    /// One line: `no push succeeded: …`.
    public let headline: String
    /// The most frequent failure class with a message of its own, when pushes failed below HTTP.
    public let sample: String?
    /// What to try, when the failure has a known remedy.
    public let hint: String?
    /// When no connection ever worked: `the target refused every connection: …`.
    public let connections: String?

    /// The failure of `result`, or `nil` when some push succeeded.
    public init?(_ result: RunResult) {
        let counts = result.counts
        guard counts.succeeded == 0 else { return nil }
        guard counts.sent > 0 else {
            headline = "nothing was sent"
            sample = nil
            hint = nil
            connections = nil
            return
        }
        var parts: [String] = []
        if counts.rejected > 0 {
            let top = result.rejectedByReason.max { $0.value < $1.value }?.key ?? "?"
            parts.append("\(counts.rejected) rejected (mostly \(top))")
        }
        if counts.errored > 0 {
            parts.append(
                "\(counts.errored) errored ("
                    + result.failureClasses.map { "\($0.rawValue) \(result.erroredByKind[$0.rawValue] ?? 0)" }
                    .joined(separator: ", ") + ")"
            )
        }
        if counts.timedOut > 0 { parts.append("\(counts.timedOut) timed out") }
        headline = "no push succeeded: \(counts.sent) sent, " + parts.joined(separator: ", ")
        let top = result.failureClasses.first
        sample = top.flatMap { kind in result.erroredSamples[kind.rawValue].map { "\(kind.rawValue): \($0)" } }
        connections =
            result.noConnectionWorked
            ? (top == .refusedStream
                ? "the target refused every push unprocessed" : "the target refused every connection")
                + ": \(result.connectionAttempts) connection attempts in "
                + String(format: "%.1f s", result.durationSeconds) + ", last failure \(top?.rawValue ?? "?")"
            : nil
        hint =
            top?.hint
            ?? (counts.timedOut == counts.sent
                ? "nothing answered within --timeout: is the target stalled, or is the deadline too short?" : nil)
    }

    /// The console's first rows.
    public var rows: [(String, String)] {
        [("FAILED", headline)] + (connections.map { [("connections", $0)] } ?? [])
            + (sample.map { [("failure", $0)] } ?? []) + (hint.map { [("hint", $0)] } ?? [])
    }
}
