import Basics
import CNGHTTP2
import Wire

#if canImport(Glibc)
import Glibc
#endif

/// Sends APNs pushes over HTTP/2 and TLS with libnghttp2 and libssl directly, without libcurl.
///
/// libcurl spends most of a push's CPU in its own bookkeeping and in a few socket calls per
/// request; h2load, on the same nghttp2, batches every frame of a loop into one TLS write. This
/// client does what h2load does: requests go to the connection with the fewest streams, each
/// loop reads every readable socket once and writes each connection's queued frames with one
/// `SSL_write`. Connections open on first use (and again after a failure or GOAWAY, counted in
/// `reconnections`) without blocking: connect and handshake advance in the same loop, each
/// within `connectTimeout`. The server's MAX_CONCURRENT_STREAMS is respected by nghttp2,
/// which holds requests beyond it until a stream frees up.
///
/// Every request has a deadline, `requestTimeout` after its `intendedAt` (the instant its
/// latency runs from): past it, it is cancelled (RST_STREAM CANCEL) and finishes as timed out.
/// A connection with requests open that reads nothing for `pingInterval` is sent a PING, and
/// is ended as lost when that goes unanswered as long again.
public final class NGHTTP2PushClient: PushTransport {
    private let configuration: TransportConfiguration
    let tls: TLSClientContext
    private let host: String
    private let port: Int
    private var address: SocketAddress?
    private(set) var authority: ByteField
    private var connections: [HTTP2Connection?]
    private var idle: [StreamSlot]
    private let slotCount: Int
    /// Requests that failed before reaching a connection, handed back at the next `perform`.
    private var unsent: [StreamSlot] = []
    public private(set) var recoveries: TransportRecoveries? = TransportRecoveries()
    private var polled: [pollfd] = []
    /// Whether `polled` holds the sockets' readiness since the last `perform`; if not, every
    /// connection is read.
    private var pollIsFresh = false
    private let requestTimeout: UInt64
    private let connectTimeout: UInt64
    private let pingInterval: UInt64
    /// No request's deadline is earlier than this (it may be earlier than the earliest one,
    /// which only costs a scan that finds nothing).
    private var nextRequestDeadline = UInt64.max
    private var opened: [Bool]
    /// Connections told to go away whose position was reopened, kept until their answers come.
    private var orphans: [HTTP2Connection] = []
    public private(set) var connectionAttempts = 0
    public var connectionsOpen: Int? {
        connections.reduce(0) { $0 + ($1?.isReady == true ? 1 : 0) } + orphans.count { $0.isReady }
    }

    /// How often a request refused unprocessed is sent again before it fails as refused: RFC
    /// 9113 §8.7 lets a client retry such requests; a server that refuses everything must not
    /// turn that into a loop. Only requests refused by a connection that has answered others are
    /// sent again here (over a stream limit that dropped, or past a graceful GOAWAY's last
    /// stream), at once, paced by the server's stream limit, which no connection exceeds; on a
    /// connection that answered nothing they fail at once, and the engine's reconnect backoff
    /// decides when to try again.
    static let maxRefusals = 10

    /// Set for a client whose connections go to peers in this process (`inMemory`): the
    /// identity those peers present.
    private let memoryIdentity: TLSIdentity?
    /// How the in-memory peers treat their connections.
    let memoryBehaviour: InMemoryAPNsPeer.Behaviour
    /// The peers of an in-memory client's connections, which `serveMemoryPeers` runs.
    public internal(set) var memoryPeers: [InMemoryAPNsPeer] = []

    public var inFlight: Int { slotCount - idle.count }

    deinit {
        authority.deallocate()
    }
    public var idleSlots: Int { idle.count }

    /// Creates the client; connections open with the first requests.
    public convenience init(configuration: TransportConfiguration) throws(TransportError) {
        try self.init(configuration: configuration, memoryIdentity: nil)
    }

    /// Creates the client; with `memoryIdentity` its connections go to in-memory peers that
    /// behave as `memoryBehaviour` says.
    init(
        configuration: TransportConfiguration,
        memoryIdentity: TLSIdentity?,
        memoryBehaviour: InMemoryAPNsPeer.Behaviour = InMemoryAPNsPeer.Behaviour()
    ) throws(TransportError) {
        self.memoryBehaviour = memoryBehaviour
        try configuration.checkShape()
        self.memoryIdentity = memoryIdentity
        guard let (host, port) = Self.hostAndPort(configuration.origin) else {
            throw TransportError.setup("the origin must be https://host[:port], not \(configuration.origin)")
        }
        self.configuration = configuration
        self.host = host
        self.port = port
        requestTimeout = configuration.requestTimeout.inNanoseconds
        connectTimeout = configuration.connectTimeout.inNanoseconds
        pingInterval = configuration.pingInterval.inNanoseconds
        authority = ByteField(capacity: 1)
        authority.set(Array((port == 443 ? host : "\(host):\(port)").utf8))
        tls = try TLSClientContext(configuration: configuration)
        connections = Array(repeating: nil, count: configuration.connections)
        opened = Array(repeating: false, count: configuration.connections)
        slotCount = configuration.connections * configuration.streamsPerConnection
        idle = (0..<slotCount).map { _ in StreamSlot() }
    }

    public func submit(
        tag: Int,
        intendedAt: UInt64,
        path: [UInt8],
        apnsID: (high: UInt64, low: UInt64),
        headers: HeaderBlock,
        body: [UInt8]
    ) throws(TransportError) {
        guard let slot = idle.popLast() else { throw TransportError.setup("submit called with no idle slot") }
        slot.prepare(
            tag: tag,
            intendedAt: intendedAt,
            path: path,
            apnsID: apnsID,
            headers: headers,
            body: body
        )
        nextRequestDeadline = min(nextRequestDeadline, intendedAt &+ requestTimeout)
        send(slot)
    }

    /// Puts `slot` on the least busy connection, or on the list of failures handed back next.
    private func send(_ slot: StreamSlot) {
        do {
            try leastBusyConnection().submit(slot)
        } catch {
            slot.failure = error
            unsent.append(slot)
        }
    }

    public func perform(onCompletion: (PushCompletion) -> Void) {
        let now = monotonicNanos()
        if now >= nextRequestDeadline { cancelOverdue(now: now) }
        let readAll = !pollIsFresh
        pollIsFresh = false
        for case let connection? in connections {
            serve(connection, reading: readAll || isReadable(connection), now: now, onCompletion)
        }
        for connection in orphans {
            serve(connection, reading: readAll || isReadable(connection), now: now, onCompletion)
        }
        if configuration.requestsPerConnection != nil {
            for case let connection? in connections where connection.isUsedUp { connection.retire() }
            for connection in orphans where connection.isUsedUp { connection.retire() }
        }
        for index in connections.indices where connections[index]?.isOpen == false {
            connections[index] = nil
        }
        orphans.removeAll { !$0.isOpen }
        hand(unsent, port: 0, to: onCompletion)
        unsent.removeAll(keepingCapacity: true)
    }

    public func wait(timeoutNanos: UInt64) {
        guard unsent.isEmpty else { return }
        guard inFlight > 0 else { return pause(nanos: timeoutNanos) }
        polled.removeAll(keepingCapacity: true)
        var wakeAt = nextRequestDeadline
        for case let connection? in connections where connection.isOpen {
            watch(connection)
            wakeAt = min(wakeAt, connection.nextCheck(pingInterval: pingInterval))
        }
        for connection in orphans where connection.isOpen {
            watch(connection)
            wakeAt = min(wakeAt, connection.nextCheck(pingInterval: pingInterval))
        }
        guard !polled.isEmpty else { return }
        let now = monotonicNanos()
        let timeout = wakeAt <= now ? 0 : min(timeoutNanos, wakeAt - now)
        pollIsFresh = pb_poll_nanos(&polled, nfds_t(polled.count), timeout) >= 0
    }

    /// Whether the last `poll` found `connection`'s socket readable (or failed): a socket with
    /// nothing to read would cost a `read` call that says so.
    private func isReadable(_ connection: HTTP2Connection) -> Bool {
        let ready = Int16(POLLIN) | Int16(POLLERR) | Int16(POLLHUP)
        return polled.contains { $0.fd == connection.socket && $0.revents & ready != 0 }
    }

    /// Moves `connection` on (reading only when there is something to read), checks it is
    /// alive, and hands over what finished, sending refused requests again.
    private func serve(
        _ connection: HTTP2Connection,
        reading: Bool,
        now: UInt64,
        _ onCompletion: (PushCompletion) -> Void
    ) {
        connection.serve(now: now, readable: reading)
        connection.checkLiveness(now: now, interval: pingInterval)
        hand(connection.finished, port: connection.localPort, to: onCompletion)
        connection.finished.removeAll(keepingCapacity: true)
        // Checked first: taking a copy of an empty list and clearing it would allocate anew.
        guard !connection.refused.isEmpty else { return }
        let refused = connection.refused
        connection.refused.removeAll()
        for slot in refused {
            if slot.refusals > Self.maxRefusals || !connection.hasAnswered {
                if slot.failure?.kind == .refusedStream {
                    slot.failure = ConnectionFailure(
                        .refusedStream,
                        "the server refused the stream unprocessed (REFUSED_STREAM)"
                            + (slot.refusals > 1 ? " \(slot.refusals) times" : "")
                    )
                }
                hand([slot], port: connection.localPort, to: onCompletion)
                continue
            }
            recoveries!.resentRefused += 1
            slot.rewind()
            send(slot)
        }
    }

    private func watch(_ connection: HTTP2Connection) {
        polled.append(pollfd(fd: connection.socket, events: connection.pollEvents, revents: 0))
    }

    /// Hands `slots` back, all answered at one instant: the clock is read once for a
    /// connection's read, not once for each of its answers.
    private func hand(_ slots: [StreamSlot], port: Int, to onCompletion: (PushCompletion) -> Void) {
        guard !slots.isEmpty else { return }
        let answeredAt = monotonicNanos()
        for (index, slot) in slots.enumerated() {
            idle.append(slot)
            var completion = slot.completion(localPort: port)
            completion.answeredAt = answeredAt
            completion.endsBatch = index == slots.count - 1
            onCompletion(completion)
        }
    }

    /// Cancels every request whose deadline has passed, and notes the earliest one left.
    private func cancelOverdue(now: UInt64) {
        nextRequestDeadline = .max
        for connection in connections.compactMap({ $0 }) + orphans {
            for slot in connection.requests where !slot.timedOut {
                let deadline = slot.intendedAt &+ requestTimeout
                if now >= deadline {
                    connection.cancel(slot)
                } else {
                    nextRequestDeadline = min(nextRequestDeadline, deadline)
                }
            }
            connection.flush()
        }
    }

    /// The connection with the fewest streams, a position with none counting as empty: it is
    /// opened (or reopened after a failure or GOAWAY) there and then, without waiting for it.
    ///
    /// Called for every push, so it asks a connection whether it accepts requests only when it
    /// would be the least busy so far, and stops at one with nothing on it: no connection can
    /// be less busy.
    private func leastBusyConnection() throws(ConnectionFailure) -> HTTP2Connection {
        var index = 0
        var fewest = Int.max
        for position in connections.indices where fewest > 0 {
            let streams = connections[position]?.requestCount ?? 0
            if streams < fewest && connections[position]?.acceptsRequests != false {
                index = position
                fewest = streams
            }
        }
        if let connection = connections[index], connection.acceptsRequests { return connection }
        if let draining = connections[index], draining.isOpen {
            // Told to go away, with answers still due: keep it until they come, elsewhere.
            orphans.append(draining)
        }
        let connection =
            if let memoryIdentity { try openInMemory(presenting: memoryIdentity) } else { try openOnNetwork() }
        connectionAttempts += 1
        // A connection closed on purpose after its requests is not a recovery.
        if opened[index] && configuration.requestsPerConnection == nil { recoveries!.reconnections += 1 }
        opened[index] = true
        connections[index] = connection
        return connection
    }

    /// Starts a connection to the origin over TCP.
    private func openOnNetwork() throws(ConnectionFailure) -> HTTP2Connection {
        if address == nil { address = try SocketAddress.resolve(host: host, port: port) }
        let resolved = address!
        return HTTP2Connection(
            address: resolved,
            host: host,
            port: port,
            authority: authority.field(named: .authority),
            tls: tls,
            connectTimeoutNanos: connectTimeout,
            now: monotonicNanos(),
            requestLimit: configuration.requestsPerConnection,
            authorization: configuration.connectionAuthorization?()
        )
    }

    private static func hostAndPort(_ origin: String) -> (String, Int)? {
        guard origin.hasPrefix("https://") else { return nil }
        var rest = origin.dropFirst("https://".count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            return (host, after.isEmpty ? 443 : Int(after.dropFirst()) ?? -1)
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return nil }
        let port = parts.count == 2 ? Int(parts[1]) ?? -1 : 443
        return (1...65535).contains(port) ? (String(parts[0]), port) : nil
    }
}
