/// The bounds that keep the mock's memory finite whatever its clients do: a mock that one broken
/// or hostile client can exhaust measures nothing for the clients that behave.
///
/// What bounds what:
/// - connections: at most `maxConnections` open at once, TLS handshakes included; a connection
///   past the limit is closed as soon as it is accepted (`connections_refused_over_limit`);
/// - a connection that does not finish its TLS handshake and ALPN within `handshakeTimeout`
///   (half-open TLS, a client that connects and says nothing) is closed (`handshakes_timed_out`);
/// - per connection: `SETTINGS_MAX_CONCURRENT_STREAMS` open streams, a header list of at most
///   8,000 bytes (APNs' SETTINGS; libnghttp2 enforces it), `keptBodyBytes` of each stream's body,
///   and libnghttp2's limits on queued control frames and on resets;
/// - a client that stops reading: the mock stops reading from it too once its answers no longer
///   fit in the socket, so unread answers cannot pile up in memory.
///
/// Measured (`Scripts/abuse.sh`, release build): an idle HTTP/2 connection costs the mock about
/// 42 KiB, so the default 16,384 connections stay under about 700 MiB.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections open at once, handshakes included.
    public var maxConnections: Int
    /// How long a new connection may take to finish TLS and ALPN.
    public var handshakeTimeout: Duration

    /// `SETTINGS_MAX_HEADER_LIST_SIZE`, as APNs was last seen sending it; longer header lists
    /// are refused.
    public static let maxHeaderListBytes = 8000

    /// Bytes of a request body the mock keeps: the largest payload APNs accepts (a broadcast's
    /// 5,120). Longer bodies are only counted, and refused with 413 `PayloadTooLarge` on length.
    public static let keptBodyBytes = 5120

    /// Creates limits; the defaults suit a loopback load test of many thousands of connections.
    public init(maxConnections: Int = 16_384, handshakeTimeout: Duration = .seconds(10)) {
        self.maxConnections = maxConnections
        self.handshakeTimeout = handshakeTimeout
    }
}
