/// How a transport connects: the same for both HTTP/2 clients, so a run changes client without
/// changing anything else.
public struct TransportConfiguration: Sendable {
    /// Scheme, host and port, for example `https://127.0.0.1:2197`.
    public var origin: String
    /// The most connections to open to the origin.
    public var connections: Int
    /// The most concurrent streams per connection (the server may allow fewer).
    public var streamsPerConnection: Int
    /// Per-request deadline, from the instant the request's latency runs from (its intended send
    /// time in open loop, its submission in closed loop) to the last response byte.
    public var requestTimeout: Duration
    /// Deadline for the TCP connect, and again for the TLS handshake that follows it.
    public var connectTimeout: Duration
    /// A connection with requests open that has read nothing for this long is sent a PING, and is
    /// taken for dead (its requests fail as `connection_lost`) when this long passes again with
    /// nothing read: how long-lived senders find a peer gone without a FIN.
    public var pingInterval: Duration
    /// PEM certificates to trust instead of the system store (a test server's own certificate).
    public var trustedCertificatesPEM: [UInt8]?
    /// Whether to verify the server's certificate and name; off only for explicit `--insecure`.
    public var verifyPeer: Bool
    /// A connection closes once this many requests were sent on it and answered, and the next
    /// request opens another (1: a connection per push, a sender mistake reproduced on purpose);
    /// `nil`: connections stay open. The nghttp2 client only.
    public var requestsPerConnection: Int? = nil
    /// When set, each new connection sends the provider token this signs (an `authorization`
    /// value) instead of the request's: a token per connection, a sender mistake reproduced on
    /// purpose. The nghttp2 client only.
    public var connectionAuthorization: (@Sendable () -> String?)? = nil

    /// Creates a configuration; the defaults suit a loopback run.
    public init(
        origin: String,
        connections: Int = 4,
        streamsPerConnection: Int = 100,
        requestTimeout: Duration = .seconds(10),
        connectTimeout: Duration = .seconds(5),
        pingInterval: Duration = .seconds(5),
        trustedCertificatesPEM: [UInt8]? = nil,
        verifyPeer: Bool = true
    ) {
        self.origin = origin
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.trustedCertificatesPEM = trustedCertificatesPEM
        self.verifyPeer = verifyPeer
    }

    /// Checks that connections and streams are positive and their product is within
    /// `maxInFlight`, since each request in flight holds its own buffers.
    func checkShape() throws(TransportError) {
        guard requestTimeout > .zero, connectTimeout > .zero, pingInterval > .zero else {
            throw TransportError.setup("the request, connect and PING deadlines must be positive")
        }
        guard connections > 0, streamsPerConnection > 0 else {
            throw TransportError.setup("connections and streams per connection must be positive")
        }
        guard CurlPushClient.allowsInFlight(connections: connections, streams: streamsPerConnection) else {
            throw TransportError.setup(
                "\(connections) connections × \(streamsPerConnection) streams is more than "
                    + "\(CurlPushClient.maxInFlight) requests in flight"
            )
        }
    }
}
