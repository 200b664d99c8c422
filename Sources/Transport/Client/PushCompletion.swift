/// How one request ended, as the transport saw it.
public enum TransferOutcome: Sendable, Equatable {
    /// The server answered with an HTTP status; `body` is empty on APNs success.
    case response(status: Int, body: [UInt8])
    /// The request's deadline passed first.
    case timedOut
    /// The transfer failed below HTTP (connect, TLS, reset, protocol): libcurl's code and words,
    /// or a negative code and the transport's own words.
    case failed(code: Int, message: String)
}

/// One finished request, handed back to the code that submitted it.
public struct PushCompletion: Sendable {
    /// The caller's identifier for the request.
    public let tag: Int
    /// The caller's reference time for latency (an intended send time in nanoseconds).
    public let intendedAt: UInt64
    /// What happened.
    public let outcome: TransferOutcome
    /// Whether the response carried the `apns-id` the request sent (APNs echoes it).
    public let apnsIDEchoed: Bool
    /// The local TCP port of the connection that carried it: identifies the connection.
    public let localPort: Int
    /// The answer's `Retry-After`, in seconds, when it had one.
    public var retryAfterSeconds: Int? = nil
}
