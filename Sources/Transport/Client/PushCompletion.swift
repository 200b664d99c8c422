/// How one request ended, as the transport saw it.
public enum TransferOutcome: Sendable, Equatable {
    /// The server answered with an HTTP status; `body` is empty on APNs success.
    case response(status: Int, body: [UInt8])
    /// The request's deadline passed first.
    case timedOut
    /// The transfer failed below HTTP (connect, TLS, reset, protocol): its class, shared by both
    /// transports, and the transport's own words for this case.
    case failed(FailureClass, message: String)
}

/// One finished request, handed back to the code that submitted it.
public struct PushCompletion: Sendable {
    /// The caller's identifier for the request.
    public let tag: Int
    /// The caller's reference time for latency (an intended send time in nanoseconds).
    public let intendedAt: UInt64
    /// What happened (the engine makes an answer past the request's deadline a timeout).
    public var outcome: TransferOutcome
    /// Whether the response carried the `apns-id` the request sent (APNs echoes it).
    public let apnsIDEchoed: Bool
    /// The local TCP port of the connection that carried it: identifies the connection.
    public let localPort: Int
    /// The answer's `Retry-After`, in seconds, when it had one.
    public var retryAfterSeconds: Int? = nil
    /// When the transport had the answer (`monotonicNanos`), read once for every answer of a
    /// read: `nil` when it leaves the reading to the caller.
    public var answeredAt: UInt64? = nil
    /// Whether it is the last of the answers handed over at one `answeredAt`: a caller timing
    /// its own handling of them reads the clock once, after this one, not after each.
    public var endsBatch = true

    /// Creates a completion (a transport makes one per finished request).
    public init(
        tag: Int,
        intendedAt: UInt64,
        outcome: TransferOutcome,
        apnsIDEchoed: Bool,
        localPort: Int,
        retryAfterSeconds: Int? = nil
    ) {
        self.tag = tag
        self.intendedAt = intendedAt
        self.outcome = outcome
        self.apnsIDEchoed = apnsIDEchoed
        self.localPort = localPort
        self.retryAfterSeconds = retryAfterSeconds
    }
}
