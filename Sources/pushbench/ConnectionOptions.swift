import ArgumentParser
import LoadEngine
import Transport

/// How a sender holds its connections: workers, connections and streams, the client, each
/// push's deadline and the connection deadlines, the reconnect backoff, and retries. One group,
/// so the settings a production APNs sender tunes read the same wherever a command sends.
struct ConnectionOptions: ParsableArguments {

    @Option(help: "Dispatch worker threads, each with its own HTTP/2 client and share of the connections.")
    var threads = 1

    @Option(help: "Most HTTP/2 connections to open.")
    var connections = 4

    @Option(help: "Most concurrent streams per connection (the server's SETTINGS may allow fewer).")
    var streams = 100

    @Option(
        help: ArgumentHelp(
            "HTTP/2 client: nghttp2 (libnghttp2 over libssl, one TLS write per loop) or curl (libcurl multi).",
            discussion: """
                nghttp2 spends about a quarter of libcurl's CPU per push; curl is the compatible one, for TLS set-ups \
                only libcurl handles. Benchmarks/h2load-compare.sh measures both against h2load.
                """
        )
    )
    var transport = TransportKind.nghttp2

    @Option(
        help: ArgumentHelp(
            "Per-request deadline, from the instant the push's latency runs from.",
            discussion: """
                In open loop that is the push's intended send time, so a push that waited for a stream has less \
                time left. A push past its deadline is cancelled (RST_STREAM CANCEL) and counted as timed out; an \
                answer that arrives later is counted nowhere else, so no succeeded push is slower than this.
                """
        )
    )
    var timeout = TimeSpan(seconds: 10)

    @Option(
        name: .customLong("connect-timeout"),
        help:
            "Deadline for a TCP connect, and again for the TLS handshake after it."
    )
    var connectTimeout = TimeSpan(seconds: 5)

    @Option(
        name: .customLong("ping-interval"),
        help: ArgumentHelp(
            "A connection with pushes open that reads nothing for this long is sent an HTTP/2 PING.",
            discussion: """
                If that PING goes unanswered as long again, the connection is taken for dead (a peer gone without \
                FIN) and its pushes fail as connection_lost, to be retried with --retries. nghttp2 transport only; \
                with curl, --timeout bounds such pushes.
                """
        )
    )
    var pingInterval = TimeSpan(seconds: 5)

    @Option(
        name: .customLong("reconnect-backoff"),
        help: ArgumentHelp(
            "After a connection fails with no answer since the last failure, wait about this long before connecting again.",
            discussion: """
                Each such failure in a row doubles the wait (with jitter: half to all of it), up to \
                --reconnect-backoff-max; then one push goes alone as a probe, and any answer ends the backoff. \
                Meanwhile closed loop waits, and open loop counts each push as it falls due, failed with the \
                failure that started the hold. A connection that completed pushes before it closed reconnects at once.
                """
        )
    )
    var reconnectBackoff = TimeSpan(seconds: 0.1)

    @Option(
        name: .customLong("reconnect-backoff-max"),
        help: "The longest wait between connection attempts."
    )
    var reconnectBackoffMax = TimeSpan(seconds: 5)

    @Option(
        help: ArgumentHelp(
            "Send a push again after 429, 500, 503 or a transport failure, up to this many times.",
            discussion: """
                Each retry waits the answer's Retry-After, or a random time below --retry-backoff × 2^(retry-1) \
                (at most 10 s), as careful senders do. Retries are requests in every count, and are also counted \
                apart. Timeouts are not retried: the push may have arrived.
                """
        )
    )
    var retries = 0

    @Option(
        name: .customLong("retry-backoff"),
        help: "The first retry's backoff bound."
    )
    var retryBackoff = TimeSpan(seconds: 0.1)

    func validate() throws {
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be 0 to 10") }
        guard timeout.nanoseconds > 0, retryBackoff.nanoseconds > 0 else {
            throw ValidationError("--timeout and --retry-backoff must be longer than 0")
        }
        guard connectTimeout.nanoseconds > 0, pingInterval.nanoseconds > 0, reconnectBackoff.nanoseconds > 0 else {
            throw ValidationError("--connect-timeout, --ping-interval and --reconnect-backoff must be longer than 0")
        }
        guard connections > 0 else { throw ValidationError("--connections \(connections): must be at least 1") }
        guard streams > 0 else { throw ValidationError("--streams \(streams): must be at least 1") }
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be 1 to 64") }
        guard connections >= threads else {
            throw ValidationError("--connections must be at least --threads: each worker owns its connections")
        }
        guard CurlPushClient.allowsInFlight(connections: connections, streams: streams) else {
            throw ValidationError(
                "--connections × --streams may be at most \(CurlPushClient.maxInFlight) requests in flight"
            )
        }
    }

    /// The transport's settings toward `origin`.
    func transportConfiguration(origin: String, verifyPeer: Bool) -> TransportConfiguration {
        TransportConfiguration(
            origin: origin,
            connections: connections,
            streamsPerConnection: streams,
            requestTimeout: timeout.duration,
            connectTimeout: connectTimeout.duration,
            pingInterval: pingInterval.duration,
            verifyPeer: verifyPeer
        )
    }

    /// `--retries` with `--retry-backoff`.
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetries: retries, base: retryBackoff.duration) }

    /// `--reconnect-backoff` up to `--reconnect-backoff-max` (never below the first hold).
    var reconnectPolicy: ReconnectBackoff {
        ReconnectBackoff(
            base: reconnectBackoff.duration,
            cap: max(reconnectBackoffMax.duration, reconnectBackoff.duration)
        )
    }
}

extension TransportKind: ExpressibleByArgument {}
