import CNGHTTP2

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
/// `reconnections`); the server's MAX_CONCURRENT_STREAMS is respected by nghttp2, which holds
/// requests beyond it until a stream frees up.
public final class NGHTTP2PushClient: PushTransport {
    private let configuration: HTTP2PushClient.Configuration
    private let tls: TLSClientContext
    private let host: String
    private let port: Int
    private var authority: ByteField
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
    private var nextDeadlineCheck: UInt64 = 0
    private var opened: [Bool]
    /// Connections told to go away whose position was reopened, kept until their answers come.
    private var orphans: [HTTP2Connection] = []

    public var inFlight: Int { slotCount - idle.count }

    deinit {
        authority.deallocate()
    }
    public var idleSlots: Int { idle.count }

    /// Creates the client; connections open with the first requests.
    public init(configuration: HTTP2PushClient.Configuration) throws(TransportError) {
        try configuration.checkShape()
        guard let (host, port) = Self.hostAndPort(configuration.origin) else {
            throw TransportError.setup("the origin must be https://host[:port], not \(configuration.origin)")
        }
        self.configuration = configuration
        self.host = host
        self.port = port
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
            submittedAt: nanosNow(),
            path: path,
            apnsID: apnsID,
            headers: headers,
            body: body
        )
        send(slot)
    }

    /// Puts `slot` on the least busy connection, or on the list of failures handed back next.
    private func send(_ slot: StreamSlot) {
        do {
            let connection = try leastBusyConnection()
            if !connection.submit(slot, authority: authority.field(named: .authority)) {
                slot.failure = "nghttp2 refused the request"
                unsent.append(slot)
            }
        } catch {
            slot.failure = error.detail
            unsent.append(slot)
        }
    }

    public func perform(onCompletion: (PushCompletion) -> Void) {
        let now = nanosNow()
        let checkDeadlines = now >= nextDeadlineCheck
        if checkDeadlines { nextDeadlineCheck = now + 50_000_000 }
        let readAll = !pollIsFresh
        pollIsFresh = false
        for case let connection? in connections {
            serve(connection, reading: readAll || isReadable(connection), now: now, checkDeadlines, onCompletion)
        }
        for connection in orphans {
            serve(connection, reading: readAll || isReadable(connection), now: now, checkDeadlines, onCompletion)
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
        for case let connection? in connections where connection.isOpen { watch(connection) }
        for connection in orphans where connection.isOpen { watch(connection) }
        guard !polled.isEmpty else { return }
        pollIsFresh = pb_poll_nanos(&polled, nfds_t(polled.count), timeoutNanos) >= 0
    }

    /// Whether the last `poll` found `connection`'s socket readable (or failed): a socket with
    /// nothing to read would cost a `read` call that says so.
    private func isReadable(_ connection: HTTP2Connection) -> Bool {
        let ready = Int16(POLLIN) | Int16(POLLERR) | Int16(POLLHUP)
        return polled.contains { $0.fd == connection.socket && $0.revents & ready != 0 }
    }

    /// Moves `connection`'s frames (reading only when there is something to read) and hands
    /// over what finished, sending refused requests again.
    private func serve(
        _ connection: HTTP2Connection,
        reading: Bool,
        now: UInt64,
        _ checkDeadlines: Bool,
        _ onCompletion: (PushCompletion) -> Void
    ) {
        if checkDeadlines { cancelOverdue(on: connection, now: now) }
        if reading { connection.transfer() } else { connection.flush() }
        hand(connection.finished, port: connection.localPort, to: onCompletion)
        connection.finished.removeAll(keepingCapacity: true)
        // Checked first: taking a copy of an empty list and clearing it would allocate anew.
        guard !connection.refused.isEmpty else { return }
        let refused = connection.refused
        connection.refused.removeAll()
        for slot in refused {
            recoveries!.resentRefused += 1
            slot.rewind()
            send(slot)
        }
    }

    private func watch(_ connection: HTTP2Connection) {
        let events = Int16(POLLIN) | (connection.hasPendingOutput ? Int16(POLLOUT) : 0)
        polled.append(pollfd(fd: connection.socket, events: events, revents: 0))
    }

    private func hand(_ slots: [StreamSlot], port: Int, to onCompletion: (PushCompletion) -> Void) {
        for slot in slots {
            idle.append(slot)
            onCompletion(slot.completion(localPort: port))
        }
    }

    /// Cancels the streams on `connection` whose deadline has passed.
    private func cancelOverdue(on connection: HTTP2Connection, now: UInt64) {
        let deadline = UInt64(configuration.requestTimeoutMs) * 1_000_000
        for slot in connection.open.values where !slot.timedOut && now &- slot.submittedAt >= deadline {
            connection.cancel(slot)
        }
    }

    /// The connection with the fewest streams, a position with none counting as empty: it is
    /// opened (or reopened after a failure or GOAWAY) there and then.
    private func leastBusyConnection() throws(TransportError) -> HTTP2Connection {
        var index = 0
        var fewest = Int.max
        for (position, connection) in connections.enumerated() {
            let streams = connection.map { $0.acceptsRequests ? $0.open.count : Int.max } ?? 0
            if streams < fewest {
                index = position
                fewest = streams
            }
        }
        if let connection = connections[index], connection.acceptsRequests { return connection }
        if let draining = connections[index], draining.isOpen {
            // Told to go away, with answers still due: keep it until they come, elsewhere.
            orphans.append(draining)
        }
        let connection = try HTTP2Connection(
            host: host,
            port: port,
            tls: tls,
            connectTimeoutMs: configuration.connectTimeoutMs
        )
        if opened[index] { recoveries!.reconnections += 1 }
        opened[index] = true
        connections[index] = connection
        return connection
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

extension TransportError {
    /// The error's detail without the set-up prefix.
    var detail: String {
        switch self {
        case .setup(let detail): detail
        }
    }
}

private func nanosNow() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
