#if canImport(Glibc)
import Glibc
#endif

/// What the load engine needs from an HTTP/2 client: submit pushes into free slots, move bytes
/// and collect what finished, wait for the sockets.
///
/// Two implementations: `CurlPushClient` on libcurl (the compatible one: any TLS setup libcurl
/// handles) and `NGHTTP2PushClient` on libnghttp2 and libssl directly (the fast one: one TLS
/// write per loop for every frame queued, as h2load does). Both are driven by one thread.
public protocol PushTransport: AnyObject {
    /// Requests submitted and not yet completed.
    var inFlight: Int { get }
    /// How many more requests can be submitted now.
    var idleSlots: Int { get }
    /// Connections opened again after one failed or was told to go away, and requests sent again
    /// because the server refused them unprocessed; `nil` where the client cannot tell (libcurl
    /// does both inside).
    var recoveries: TransportRecoveries? { get }
    /// Connections the client has tried to open, whether or not they came up.
    var connectionAttempts: Int { get }
    /// Connections whose TLS handshake is done and that are not closed, those told to go away
    /// and still answering included; `nil` where the client cannot tell (libcurl keeps its
    /// connection pool inside).
    var connectionsOpen: Int? { get }
    /// Starts one POST of `body` to the origin plus `path`, with `headers` and an `apns-id` made
    /// from `apnsID`. Requires `idleSlots > 0`.
    func submit(
        tag: Int,
        intendedAt: UInt64,
        path: [UInt8],
        apnsID: (high: UInt64, low: UInt64),
        headers: HeaderBlock,
        body: [UInt8]
    ) throws(TransportError)
    /// Moves bytes and hands every finished request to `onCompletion`; never blocks.
    func perform(onCompletion: (PushCompletion) -> Void)
    /// Waits up to `timeoutNanos` for socket activity, or sleeps that long when nothing is in
    /// flight, so that a sender waiting for its next push's time does not spin a core.
    func wait(timeoutNanos: UInt64)
    /// Ends every request in flight as failed with `kind`; they are handed back at the next
    /// `perform`. The engine calls it when it starts holding off a target that answered
    /// nothing, so that a client that reconnects on its own (libcurl retries unprocessed
    /// requests on new connections) does not keep connecting through the hold.
    func abandonInFlight(_ kind: FailureClass, message: String)
}

extension PushTransport {
    /// Nothing to abandon for a client that never reconnects on its own.
    public func abandonInFlight(_ kind: FailureClass, message: String) {}
}

/// What a client did to keep requests flowing when connections or streams failed.
public struct TransportRecoveries: Sendable, Equatable {
    /// Connections opened again after a failure, a reset or a GOAWAY.
    public var reconnections = 0
    /// Requests sent again because the server refused them unprocessed (REFUSED_STREAM).
    public var resentRefused = 0

    /// Creates zero counts.
    public init() {}

    /// Adds another client's counts.
    public mutating func add(_ other: TransportRecoveries) {
        reconnections += other.reconnections
        resentRefused += other.resentRefused
    }
}

/// Which HTTP/2 client a run uses.
public enum TransportKind: String, Sendable, CaseIterable {
    /// libcurl's multi interface.
    case curl
    /// libnghttp2 over libssl, driven directly.
    case nghttp2

    /// Creates the client.
    public func makeClient(_ configuration: TransportConfiguration) throws(TransportError) -> any PushTransport {
        switch self {
        case .curl: try CurlPushClient(configuration: configuration)
        case .nghttp2: try NGHTTP2PushClient(configuration: configuration)
        }
    }
}

/// Sleeps `nanos` nanoseconds: how a client with nothing in flight waits for the next push's
/// time, instead of returning at once and letting the worker spin.
func pause(nanos: UInt64) {
    guard nanos > 0 else { return }
    var request = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
