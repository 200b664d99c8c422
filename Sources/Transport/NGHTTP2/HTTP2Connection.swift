import Basics
import CNGHTTP2
import Wire

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/2 connection: an nghttp2 client session over a `TLSByteStream`, and the requests
/// on it.
///
/// Nothing here blocks: the worker's poll loop drives each connection through its phases with
/// `serve`, so a connection being opened never delays the others on the same worker. Each
/// phase holds what exists in it: the byte stream while it opens (its connect and handshake
/// each bounded by `--connect-timeout`), the stream and the session once ready, the failure once
/// closed. Requests submitted before the connection is ready wait in `waiting` and go to nghttp2
/// when it is. Frames nghttp2 queues are gathered into one buffer and written with one
/// `SSL_write` per `flush`, so a loop that submitted a hundred requests costs one TLS record
/// batch and one `sendto`, not one per frame.
///
/// Ownership: a `StreamSlot` handed to `submit` belongs to this connection until it is in
/// `finished` or `refused`; nghttp2 holds unretained pointers to it only while it is in `open`.
final class HTTP2Connection {
    /// Where the connection stands, with what it has there.
    enum Phase {
        /// Connecting and shaking hands.
        case opening(TLSByteStream)
        /// HTTP/2 agreed: the session runs over the stream, with what the server said of it.
        case ready(ReadySession)
        /// Closed, for this reason: what a request submitted to it then fails with.
        case closed(ConnectionFailure)
    }

    /// What exists only once HTTP/2 runs: the stream and the nghttp2 session over it, the
    /// server's stream limit and GOAWAY, and the liveness clock. A reference, so that a read or a
    /// callback updates it in place rather than rewriting the phase.
    final class ReadySession {
        let stream: TLSByteStream
        let session: OpaquePointer
        /// Whether the server's first SETTINGS has come; until then one stream at a time.
        var peerSettingsReceived = false
        /// The most streams the server allows open at once: one until its SETTINGS say (APNs
        /// starts a connection at one), then its SETTINGS_MAX_CONCURRENT_STREAMS, which may be 0
        /// (wait). Read again after every read, since SETTINGS may change it.
        var peerStreamLimit = 1
        /// The server's GOAWAY, once one came: its error code and debug data (APNs puts a JSON
        /// `reason` there), which every request it ends fails with.
        var goaway: ConnectionFailure?
        /// When bytes last arrived, and when a PING went out that nothing has answered since.
        var lastReadAt: UInt64
        var pingSentAt: UInt64?

        init(stream: TLSByteStream, session: OpaquePointer, now: UInt64) {
            self.stream = stream
            self.session = session
            lastReadAt = now
        }
    }

    private(set) var phase: Phase
    /// The local TCP port: identifies the connection in reports.
    private(set) var localPort = 0
    /// Requests on this connection handed to nghttp2 and not yet finished.
    private(set) var open = OpenStreams()
    /// Requests not yet handed to nghttp2, in order: submitted before the connection was ready,
    /// or beyond the streams the server allows. Kept here, not in nghttp2's queue, so that one
    /// past its deadline can be cancelled before it was ever sent.
    private(set) var waiting: [StreamSlot] = []
    /// Requests that finished while bytes were read or written, for the client to hand back.
    var finished: [StreamSlot] = []
    /// Requests the server refused before processing them (REFUSED_STREAM: over its stream
    /// limit, or past a GOAWAY's last stream), which may be sent again (RFC 9113 §8.7).
    var refused: [StreamSlot] = []
    /// Whether the server has answered a request here: only then are refused requests sent
    /// again by the transport (a server that answers nothing is the engine's to back off from).
    private(set) var hasAnswered = false
    private let authority: nghttp2_nv
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var input = [UInt8](repeating: 0, count: 64 * 1024)
    /// What the nghttp2 session allocates, reused; it outlives the session (freed after it in
    /// `deinit`).
    private let memory = BlockPool.forNGHTTP2Session()
    /// The header fields of the request being submitted; nghttp2 copies the array, not the bytes.
    /// The first three (method, scheme, authority) never change, and the shared ones after
    /// `:path` change only with the header block (`fieldsBlock`), so a push writes just its own
    /// three: path, `apns-id` and content length.
    private var fields = UnsafeMutableBufferPointer<nghttp2_nv>.allocate(capacity: 16)
    /// The block whose shared fields are in `fields`, and how many fields a request has with it.
    private var fieldsBlock: HeaderBlock?
    private var fieldCount = 0

    /// Whether the connection is still up or on its way (it may have been told to go away).
    var isOpen: Bool {
        if case .closed = phase { false } else { true }
    }

    /// Whether HTTP/2 runs on it.
    var isReady: Bool {
        if case .ready = phase { true } else { false }
    }

    /// Its socket, to poll; -1 in memory and once closed.
    var socket: Int32 {
        switch phase {
        case .opening(let stream): stream.socket
        case .ready(let ready): ready.stream.socket
        case .closed: -1
        }
    }

    /// Requests on the connection, sent or waiting to be.
    var requestCount: Int { open.count + waiting.count }

    /// Requests this connection may still take before it closes (`requestsPerConnection`).
    private var requestsLeft: Int?
    /// The connection's own `authorization` field, sent instead of the request's.
    private let ownAuthorization: HeaderBlock?

    /// Whether it has taken every request it may and all of them have ended: time to close it.
    var isUsedUp: Bool { requestsLeft == 0 && requestCount == 0 }

    /// Whether new requests may start here: not closed, no GOAWAY received, and not used up.
    var acceptsRequests: Bool {
        guard requestsLeft != 0 else { return false }
        return switch phase {
        case .opening: true
        case .ready(let ready): nghttp2_session_check_request_allowed(ready.session) != 0
        case .closed: false
        }
    }

    /// Whether bytes are waiting for the socket to accept them.
    var hasPendingOutput: Bool { outputOffset < output.count }

    /// What `poll` should wait for on the socket.
    var pollEvents: Int16 {
        switch phase {
        case .opening(let stream): stream.openingPollEvents
        case .ready: Int16(POLLIN) | (hasPendingOutput ? Int16(POLLOUT) : 0)
        case .closed: 0
        }
    }

    /// Starts connecting to `address` without waiting; `serve` carries on from there.
    ///
    /// - Parameters:
    ///   - host: the name the certificate must carry (and SNI), or an IP address.
    ///   - authority: the `:authority` field of every request, read in place by nghttp2.
    convenience init(
        address: SocketAddress,
        host: String,
        port: Int,
        authority: nghttp2_nv,
        tls: TLSClientContext,
        connectTimeoutNanos: UInt64,
        now: UInt64,
        requestLimit: Int? = nil,
        authorization: String? = nil
    ) {
        self.init(
            stream: TLSByteStream(
                address: address,
                host: host,
                port: port,
                tls: tls,
                connectTimeoutNanos: connectTimeoutNanos,
                now: now
            ),
            authority: authority,
            now: now,
            requestLimit: requestLimit,
            authorization: authorization
        )
    }

    /// Starts the handshake over `bio`, one end of a BIO pair whose other end a peer in this
    /// process serves: the same TLS and HTTP/2 code as over a socket, with no kernel between.
    /// The connection owns `bio` from here on.
    convenience init(memory bio: OpaquePointer, host: String, authority: nghttp2_nv, tls: TLSClientContext, now: UInt64)
    {
        self.init(
            stream: TLSByteStream(memory: bio, host: host, tls: tls, now: now),
            authority: authority,
            now: now,
            requestLimit: nil,
            authorization: nil
        )
    }

    /// A connection over `stream`, as far on as the stream got at once.
    private init(
        stream: TLSByteStream,
        authority: nghttp2_nv,
        now: UInt64,
        requestLimit: Int?,
        authorization: String?
    ) {
        requestsLeft = requestLimit
        ownAuthorization = authorization.map { HeaderBlock(lines: ["authorization: \($0)"]) }
        self.authority = authority
        phase = .opening(stream)
        if case .closed(let failure?) = stream.phase { fail(failure) }
        if case .open = stream.phase { becomeReady(stream, now: now) }
        localPort = stream.localPort
    }

    deinit {
        fields.deallocate()
        if case .ready(let ready) = phase { nghttp2_session_del(ready.session) }
    }

    /// Queues a prepared request on this connection: on nghttp2 when the connection is ready
    /// (its bytes leave at the next `flush`), in `waiting` until then, and straight to
    /// `finished` with the connection's failure when it has closed.
    func submit(_ slot: StreamSlot) {
        if let left = requestsLeft, slot.refusals == 0 { requestsLeft = max(left - 1, 0) }
        switch phase {
        case .opening:
            waiting.append(slot)
        case .ready(let ready):
            // A connection idle until now has not been silent before now: the clock is read
            // only then, not for every request.
            if open.isEmpty { ready.lastReadAt = max(ready.lastReadAt, monotonicNanos()) }
            if waiting.isEmpty && open.count < ready.peerStreamLimit {
                submitToSession(slot, session: ready.session)
            } else {
                waiting.append(slot)
                admitWaiting()
            }
        case .closed(let failure):
            slot.failure = failure
            finished.append(slot)
        }
    }

    /// Cancels `slot`'s request (its deadline passed); it finishes as timed out. One still
    /// waiting finishes at once; one on the wire when nghttp2 has sent RST_STREAM(CANCEL). One
    /// that waited on a ready connection whose server allows no streams at all was never sent, for
    /// a reason the server gave: it fails as `noStreams`, so the report names the cause.
    func cancel(_ slot: StreamSlot) {
        if let index = waiting.firstIndex(where: { $0 === slot }) {
            waiting.remove(at: index)
            if case .ready(let ready) = phase, ready.peerStreamLimit == 0 {
                slot.failure = ConnectionFailure(
                    .noStreams,
                    "the server allowed no streams (SETTINGS_MAX_CONCURRENT_STREAMS 0) for the request's whole deadline"
                )
            } else {
                slot.timedOut = true
            }
            finished.append(slot)
            return
        }
        slot.timedOut = true
        guard case .ready(let ready) = phase else { return }
        nghttp2_submit_rst_stream(
            ready.session,
            UInt8(NGHTTP2_FLAG_NONE.rawValue),
            slot.streamID,
            NGHTTP2_CANCEL.rawValue
        )
    }

    /// Moves the connection on: opens it further (or fails it past its deadline), or, when
    /// ready, reads (if `readable`) and writes.
    func serve(now: UInt64, readable: Bool) {
        switch phase {
        case .opening(let stream):
            switch stream.advance(now: now) {
            case .opening: localPort = stream.localPort
            case .open: becomeReady(stream, now: now)
            case .failed(let failure): fail(failure)
            }
        case .ready(let ready): readable ? transfer(ready, now: now) : flush()
        case .closed: return
        }
    }

    /// Sends a PING when requests are open and nothing has been read for `interval`, and ends
    /// the connection as lost when nothing answers within `interval` more.
    func checkLiveness(now: UInt64, interval: UInt64) {
        guard !open.isEmpty, case .ready(let ready) = phase else { return }
        if let sent = ready.pingSentAt {
            if now &- sent >= interval {
                fail(
                    ConnectionFailure(
                        .connectionLost,
                        "no answer to PING within \(interval / 1_000_000) ms: the peer is gone"
                    )
                )
            }
            return
        }
        guard now &- ready.lastReadAt >= interval else { return }
        nghttp2_submit_ping(ready.session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        ready.pingSentAt = now
        flush()
    }

    /// The next instant this connection has something to check without socket activity: its
    /// opening deadline, or its next PING's time or answer's deadline.
    func nextCheck(pingInterval: UInt64) -> UInt64 {
        if !open.isEmpty, case .ready(let ready) = phase {
            return (ready.pingSentAt ?? ready.lastReadAt) &+ pingInterval
        }
        if case .opening(let stream) = phase { return stream.deadline ?? .max }
        return .max
    }

    /// Every request on the connection, sent or waiting (a copy: cancelling one changes both).
    var requests: [StreamSlot] { open.all + waiting }

    /// The stream is open: the session starts on it, and the waiting requests go.
    private func becomeReady(_ stream: TLSByteStream, now: UInt64) {
        localPort = stream.localPort
        guard let session = startSession() else {
            return fail(ConnectionFailure(.clientError, "nghttp2 could not create a session"))
        }
        phase = .ready(ReadySession(stream: stream, session: session, now: now))
        admitWaiting()
        flush()
    }

    /// Hands waiting requests to nghttp2 while the server's stream limit has room.
    private func admitWaiting() {
        guard !waiting.isEmpty, case .ready(let ready) = phase else { return }
        let room = ready.peerStreamLimit - open.count
        guard room > 0 else { return }
        let admitted = waiting.prefix(room)
        waiting.removeFirst(admitted.count)
        for slot in admitted { submitToSession(slot, session: ready.session) }
    }

    fileprivate func receivedSettings() {
        if case .ready(let ready) = phase { ready.peerSettingsReceived = true }
    }

    /// Writes the fields every request with `headers` shares into `fields`.
    private func useFields(of headers: HeaderBlock) {
        fieldCount = 6 + headers.fields.count
        if fields.count < fieldCount {
            fields.deallocate()
            fields = .allocate(capacity: fieldCount)
        }
        fields[0] = nghttp2_nv(
            name: StaticName.method.bytes,
            value: StaticName.post.bytes,
            namelen: StaticName.method.count,
            valuelen: StaticName.post.count,
            flags: StaticName.noCopy
        )
        fields[1] = nghttp2_nv(
            name: StaticName.scheme.bytes,
            value: StaticName.https.bytes,
            namelen: StaticName.scheme.count,
            valuelen: StaticName.https.count,
            flags: StaticName.noCopy
        )
        fields[2] = authority
        for (index, field) in headers.fields.enumerated() { fields[4 + index] = field }
        if let own = ownAuthorization?.fields[0] {
            for index in 4..<(4 + headers.fields.count) where fields[index].namelen == own.namelen {
                if memcmp(fields[index].name, own.name, own.namelen) == 0 { fields[index] = own }
            }
        }
        fieldsBlock = headers
    }

    private func submitToSession(_ slot: StreamSlot, session: OpaquePointer) {
        guard let headers = slot.headers else { return }
        if headers !== fieldsBlock { useFields(of: headers) }
        let count = fieldCount
        fields[3] = slot.path.field(named: .path)
        // Never indexed: a new value per request would evict the shared fields from the HPACK
        // table, which then go out in full again (nghttp2 leaves `:path` unindexed itself).
        fields[count - 2] = slot.apnsID.field(named: .apnsID, flags: StaticName.noCopyNoIndex)
        fields[count - 1] = slot.contentLength.field(named: .contentLength)
        let me = Unmanaged.passUnretained(slot).toOpaque()
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: me), read_callback: readBody)
        let streamID = nghttp2_submit_request(session, nil, fields.baseAddress, count, &provider, me)
        guard streamID > 0 else {
            slot.failure = ConnectionFailure(
                .clientError,
                "nghttp2 refused the request: \(String(cString: nghttp2_strerror(streamID)))"
            )
            finished.append(slot)
            return
        }
        slot.streamID = streamID
        open.insert(slot)
    }

    /// Reads what the stream has, hands it to nghttp2, then writes what nghttp2 has queued.
    private func transfer(_ ready: ReadySession, now: UInt64) {
        reading: while true {
            switch ready.stream.read(into: &input) {
            case .bytes(let count):
                ready.lastReadAt = now
                ready.pingSentAt = nil
                let used = input.withUnsafeBytes { nghttp2_session_mem_recv(ready.session, $0.baseAddress, count) }
                if used < 0 {
                    return fail(
                        ConnectionFailure(
                            .protocolError,
                            "HTTP/2 protocol error: \(String(cString: nghttp2_strerror(Int32(used))))"
                        )
                    )
                }
            case .wouldBlock:
                break reading
            case .closed(let detail):
                return fail(ConnectionFailure(.connectionLost, detail))
            }
        }
        if ready.peerSettingsReceived {
            ready.peerStreamLimit = Int(
                nghttp2_session_get_remote_settings(ready.session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            )
        }
        admitWaiting()
        flush()
    }

    /// Reads what a server that is going away sent before it went, when a write found it gone:
    /// a GOAWAY there says why, and `fail` then names it rather than the lost connection. Every
    /// error is ignored; the connection fails next whatever is read.
    private func readLastWords(_ stream: TLSByteStream, _ session: OpaquePointer) {
        while case .bytes(let count) = stream.read(into: &input) {
            let used = input.withUnsafeBytes { nghttp2_session_mem_recv(session, $0.baseAddress, count) }
            guard used >= 0 else { return }
        }
    }

    /// Writes what nghttp2 has queued, as one buffer; nothing before the connection is ready.
    func flush() {
        guard case .ready(let ready) = phase else { return }
        let stream = ready.stream
        let session = ready.session
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
        }
        while true {
            var chunk: UnsafePointer<UInt8>? = nil
            let length = nghttp2_session_mem_send(session, &chunk)
            if length < 0 {
                return fail(
                    ConnectionFailure(
                        .protocolError,
                        "HTTP/2 protocol error: \(String(cString: nghttp2_strerror(Int32(length))))"
                    )
                )
            }
            guard length > 0, let chunk else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
        }
        writing: while outputOffset < output.count {
            let offset = outputOffset
            switch output.withUnsafeBytes({ stream.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }) {
            case .wrote(let count): outputOffset += count
            case .wouldBlock: break writing
            case .failed(let detail):
                readLastWords(stream, session)
                return fail(ConnectionFailure(.connectionLost, detail))
            }
        }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 && !hasPendingOutput {
            fail(ready.goaway ?? ConnectionFailure(.goaway, "the server ended the connection"))
        }
    }

    /// Closes a used-up connection politely: GOAWAY, then the socket.
    func retire() {
        guard case .ready(let ready) = phase else {
            return fail(ConnectionFailure(.goaway, "closed after its requests"))
        }
        nghttp2_session_terminate_session(ready.session, NGHTTP2_NO_ERROR.rawValue)
        flush()
        fail(ConnectionFailure(.goaway, "closed after its requests"))
    }

    /// Ends the connection: every request sent on it finishes as failed with `failure`, or as
    /// `goaway` when the server had said it was going away; requests never sent join `refused`.
    func fail(_ failure: ConnectionFailure) {
        let stream: TLSByteStream
        var goaway: ConnectionFailure?
        switch phase {
        case .opening(let opening): stream = opening
        case .ready(let ready):
            stream = ready.stream
            goaway = ready.goaway
            nghttp2_session_del(ready.session)
        case .closed: return
        }
        let failure =
            goaway.map {
                failure.kind == .goaway ? $0 : ConnectionFailure(.goaway, "\($0.detail), then \(failure.detail)")
            } ?? failure
        stream.close(failure)
        phase = .closed(failure)
        for slot in open.inStreamOrder {
            if slot.status == 0 && !slot.timedOut { slot.failure = failure }
            finished.append(slot)
        }
        // Never sent, so safe to send again: the client does, as it does refused requests.
        for slot in waiting {
            slot.refusals += 1
            slot.failure = failure
            refused.append(slot)
        }
        open.removeAll()
        waiting.removeAll()
    }

    fileprivate func receivedGoaway(errorCode: UInt32, debugData: UnsafeBufferPointer<UInt8>) {
        guard case .ready(let ready) = phase else { return }
        let printable = debugData.prefix(200).map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "?" }
        ready.goaway = ConnectionFailure(
            .goaway,
            "the server sent GOAWAY \(String(cString: nghttp2_http2_strerror(errorCode)))"
                + (printable.isEmpty ? "" : ": \(String(printable))")
        )
    }

    fileprivate func receivedData(
        _ slot: StreamSlot,
        session: OpaquePointer?,
        streamID: Int32,
        bytes: UnsafeRawBufferPointer
    ) {
        guard slot.failure == nil, !slot.appendBody(bytes) else { return }
        slot.failure = ConnectionFailure(
            .responseTooLarge,
            "the answer's body passed \(FailureClass.maxResponseBodyBytes) bytes, more than APNs ever sends; it was cut"
        )
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    /// The stream's slot leaves `open` here, which held the last reference to it while in flight.
    fileprivate func streamClosed(_ closing: StreamSlot, errorCode: UInt32) {
        guard let slot = open.remove(closing) else { return }
        if slot.status > 0 { hasAnswered = true }
        if slot.status == 0 && !slot.timedOut && errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            slot.refusals += 1
            var goaway: ConnectionFailure?
            if case .ready(let ready) = phase { goaway = ready.goaway }
            slot.failure =
                goaway
                ?? ConnectionFailure(.refusedStream, "the server refused the stream unprocessed (REFUSED_STREAM)")
            refused.append(slot)
            return
        }
        if slot.status == 0 && !slot.timedOut {
            slot.failure =
                errorCode == NGHTTP2_NO_ERROR.rawValue
                ? ConnectionFailure(.protocolError, "the stream closed without an answer")
                : ConnectionFailure(
                    .streamReset,
                    "the server reset the stream: \(String(cString: nghttp2_http2_strerror(errorCode)))"
                )
        }
        finished.append(slot)
    }

    /// A client session for this connection, its SETTINGS queued; nil when nghttp2 cannot make one.
    private func startSession() -> OpaquePointer? {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0 else { return nil }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, receiveHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, receiveData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, closeStream)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, receiveFrame)
        var options: OpaquePointer?
        guard nghttp2_option_new(&options) == 0 else { return nil }
        defer { nghttp2_option_del(options) }
        // One stream until the server's SETTINGS say how many: APNs starts a connection at one.
        nghttp2_option_set_peer_max_concurrent_streams(options, 1)
        var session: OpaquePointer?
        var allocator = memory.nghttp2Allocator
        guard
            nghttp2_session_client_new3(
                &session,
                callbacks,
                Unmanaged.passUnretained(self).toOpaque(),
                options,
                &allocator
            ) == 0, let session
        else {
            return nil
        }
        let settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
        return session
    }
}

// The callbacks below reach the connection and the stream's slot through nghttp2's unretained
// pointers without retaining them (`_withUnsafeGuaranteedRef`): the connection outlives its
// session, and a slot stays in `open` while nghttp2 may call back for it. A retain and a
// release per callback, several callbacks per answer, were 2% of a push's CPU.

/// Runs `body` on the slot of `streamID`, if it has one.
private func withSlot(_ session: OpaquePointer?, _ streamID: Int32, _ body: (StreamSlot) -> Void) {
    guard let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return }
    Unmanaged<StreamSlot>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
}

/// Runs `body` on the connection whose session called back.
private func withConnection(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2Connection) -> Void) {
    guard let userData else { return }
    Unmanaged<HTTP2Connection>.fromOpaque(userData)._withUnsafeGuaranteedRef(body)
}

private func receiveHeader(
    _ session: OpaquePointer?,
    _ frame: UnsafePointer<nghttp2_frame>?,
    _ name: UnsafePointer<UInt8>?,
    _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?,
    _ valueLength: Int,
    _ flags: UInt8,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    withSlot(session, frame.pointee.hd.stream_id) {
        $0.header(
            name: UnsafeRawBufferPointer(start: name, count: nameLength),
            value: UnsafeRawBufferPointer(start: value, count: valueLength)
        )
    }
    return 0
}

private func receiveData(
    _ session: OpaquePointer?,
    _ flags: UInt8,
    _ streamID: Int32,
    _ data: UnsafePointer<UInt8>?,
    _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    withConnection(userData) { connection in
        withSlot(session, streamID) {
            connection.receivedData(
                $0,
                session: session,
                streamID: streamID,
                bytes: UnsafeRawBufferPointer(start: data, count: length)
            )
        }
    }
    return 0
}

private func receiveFrame(
    _ session: OpaquePointer?,
    _ frame: UnsafePointer<nghttp2_frame>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    switch UInt32(frame.pointee.hd.type) {
    case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
        withConnection(userData) { $0.receivedSettings() }
    case NGHTTP2_GOAWAY.rawValue:
        let goaway = frame.pointee.goaway
        withConnection(userData) {
            $0.receivedGoaway(
                errorCode: goaway.error_code,
                debugData: UnsafeBufferPointer(start: goaway.opaque_data, count: goaway.opaque_data_len)
            )
        }
    default: break
    }
    return 0
}

private func closeStream(
    _ session: OpaquePointer?,
    _ streamID: Int32,
    _ errorCode: UInt32,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    withSlot(session, streamID) { slot in
        withConnection(userData) { $0.streamClosed(slot, errorCode: errorCode) }
    }
    return 0
}

private func readBody(
    _ session: OpaquePointer?,
    _ streamID: Int32,
    _ buffer: UnsafeMutablePointer<UInt8>?,
    _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?,
    _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let source, let pointer = source.pointee.ptr, let buffer else {
        return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
    }
    return Unmanaged<StreamSlot>.fromOpaque(pointer)._withUnsafeGuaranteedRef { stream in
        let count = min(length, stream.body.count - stream.bodyOffset)
        buffer.update(from: stream.body.bytes + stream.bodyOffset, count: count)
        stream.bodyOffset += count
        if stream.bodyOffset == stream.body.count { flags?.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
        return count
    }
}
