import Transport

/// How requests ended. Every request sent ends in exactly one of the outcomes.
public struct OutcomeCounts: Sendable, Equatable {
    /// Requests handed to the transport.
    public var sent = 0
    /// Answered 200.
    public var succeeded = 0
    /// Answered with an HTTP error status (APNs rejected them).
    public var rejected = 0
    /// Failed below HTTP: connect, TLS, reset, protocol.
    public var errored = 0
    /// No answer within the request deadline.
    public var timedOut = 0
    /// Answers the server decided but never wrote, because the stream or connection had closed
    /// first: a profile's books, counted by the mock. A sender's own books have none (to it, such
    /// a push timed out or failed).
    public var answersUnsent = 0

    /// Creates zero counts.
    public init() {}

    /// Counts one ended request by how it ended (`sent` is counted when it leaves).
    public mutating func count(_ outcome: TransferOutcome) {
        switch outcome {
        case .response(200, _): succeeded += 1
        case .response: rejected += 1
        case .timedOut: timedOut += 1
        case .failed: errored += 1
        }
    }

    /// Adds `other`'s counts (another worker's, or another second's).
    public mutating func add(_ other: OutcomeCounts) {
        sent += other.sent
        succeeded += other.succeeded
        rejected += other.rejected
        errored += other.errored
        timedOut += other.timedOut
        answersUnsent += other.answersUnsent
    }

    /// Requests that have ended so far.
    public var completed: Int { succeeded + rejected + errored + timedOut + answersUnsent }

    /// Whether every sent request is accounted for:
    /// `sent == succeeded + rejected + errored + timed_out + answers_unsent`.
    public var isBalanced: Bool { sent == completed }
}
