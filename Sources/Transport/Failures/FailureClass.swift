/// Why a request failed below HTTP, in words both transports share: a bounded set that reports,
/// `compare` and `merge` can group by, whatever libcurl or OpenSSL said in detail.
///
/// The raw values are the keys of `errored_by_kind` in `summary.json`.
public enum FailureClass: String, Sendable, CaseIterable, Codable, Comparable {
    /// The host name did not resolve.
    case nameUnresolved = "name_unresolved"
    /// The target refused the TCP connection (nothing listens there).
    case connectRefused = "connect_refused"
    /// TCP connect or the TLS handshake did not finish within `--connect-timeout`.
    case connectTimeout = "connect_timeout"
    /// The TLS handshake failed, or the server did not agree to HTTP/2 (ALPN h2).
    case tlsHandshake = "tls_handshake"
    /// The server's certificate is not trusted or does not name the host.
    case certificateUntrusted = "certificate_untrusted"
    /// The server broke HTTP/2's rules.
    case protocolError = "protocol_error"
    /// The server reset the request's stream.
    case streamReset = "stream_reset"
    /// The server refused the request unprocessed (RST_STREAM REFUSED_STREAM) every time it was
    /// sent, up to the transport's bound.
    case refusedStream = "refused_stream"
    /// The server sent GOAWAY and the request was not processed or not answered.
    case goaway
    /// The server allowed no streams (`SETTINGS_MAX_CONCURRENT_STREAMS` 0) for the whole of the
    /// request's deadline, so it was never sent.
    case noStreams = "no_streams"
    /// The connection closed or went silent (no answer to PING) with the request open.
    case connectionLost = "connection_lost"
    /// The answer's body was larger than APNs ever sends (`maxResponseBodyBytes`), so it was cut.
    case responseTooLarge = "response_too_large"
    /// The client could not start the request (out of memory, refused by its HTTP/2 library).
    case clientError = "client_error"
    /// The request waited in PushBench's own queue for a free connection until its deadline
    /// passed, so it was never sent: PushBench's limit, not the target's.
    case pushbenchQueueTimeout = "pushbench_queue_timeout"

    /// The most bytes of an answer's body a transport takes: APNs' error bodies are a reason and
    /// perhaps a timestamp, under 100 bytes; anything past a few KiB is not APNs.
    public static let maxResponseBodyBytes = 4096

    /// Whether the failure says the connection, not the request, failed: what makes a sender back
    /// off before it connects again.
    public var isConnectionLevel: Bool {
        switch self {
        case .nameUnresolved, .connectRefused, .connectTimeout, .tlsHandshake, .certificateUntrusted, .protocolError,
            .refusedStream, .goaway, .noStreams, .connectionLost:
            true
        case .streamReset, .responseTooLarge, .clientError, .pushbenchQueueTimeout: false
        }
    }

    /// One sentence that helps the user act on the failure, when there is one.
    public var hint: String? {
        switch self {
        case .nameUnresolved: "is the host name right, and can this machine resolve it?"
        case .connectRefused: "is the target running and listening on that port?"
        case .connectTimeout:
            "the target accepted nothing or never finished TLS: is it the right port, and is it overloaded?"
        case .tlsHandshake: "does the target speak TLS 1.2+ with ALPN h2 on that port?"
        case .certificateUntrusted:
            "trust the target's certificate with --ca-file FILE, or skip the check with --insecure (test servers only)"
        case .refusedStream:
            "the server refused every attempt unprocessed: is it over its stream limit, or shutting down?"
        case .noStreams:
            "the server allows no streams at all (SETTINGS_MAX_CONCURRENT_STREAMS 0): is it overloaded, or draining?"
        case .pushbenchQueueTimeout:
            "PushBench's own client had no free connection within the deadline: raise --api-connections (or ulimit -n)"
        case .protocolError, .streamReset, .goaway, .connectionLost, .responseTooLarge, .clientError: nil
        }
    }

    public static func < (lhs: FailureClass, rhs: FailureClass) -> Bool { lhs.rawValue < rhs.rawValue }
}
