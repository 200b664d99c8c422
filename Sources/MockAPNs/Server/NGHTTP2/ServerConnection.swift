import Basics
import CNGHTTP2
import CSockets
import EventLoops
import Transport
import Wire

#if canImport(Glibc)
import Glibc
#endif

/// One client of the mock, from accept to close, on its loop's thread: the TLS handshake on the
/// system's OpenSSL, ALPN `h2` (or HTTP/2's preface from a client that offered no ALPN), then an
/// nghttp2 server session whose requests `PushResponder` answers.
///
/// A client that stops reading is no longer read from either, once its answers no longer fit in
/// the socket, so unread answers cannot pile up in memory.
final class ServerConnection: ConnectionControl, LoopClient {
    /// Where the connection stands, with what exists there.
    enum Phase {
        /// Accepted; a `slow_tls_accept` incident holds it unread for now.
        case held
        /// The TLS handshake (and ALPN) under way.
        case handshaking
        /// HTTP/2 over TLS; `prefaceDue` counts the bytes of HTTP/2's preface still to be
        /// checked from a client that offered no ALPN.
        case serving(session: OpaquePointer, prefaceDue: Int)
        case closed
    }

    let serving: MockServing
    let listening: MockServing.Listening
    private(set) var phase = Phase.held
    /// The connection's protocol state, from the moment it is known to speak HTTP/2.
    private(set) var state: ConnectionState?
    /// The streams the client has opened that have not closed yet.
    var streams: [Int32: StreamProgress] = [:]
    /// The request whose header block is arriving: nghttp2 delivers a block's fields together,
    /// so they are gathered here and the request joins `streams` once its block has ended.
    var arriving: (stream: Int32, push: InboundPush)?
    /// Error answers' bodies waiting for nghttp2 to read them into DATA frames, by stream.
    var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
    unowned let loop: EventLoop
    /// Where this loop gathers each answer's header fields for nghttp2.
    let answerFields: AnswerFields
    private let descriptor: Int32
    private let ssl: OpaquePointer
    private let template: SessionTemplate
    /// The client's address and port.
    let client: (address: String, port: Int)
    private var tag: UInt64 = 0
    private var events: UInt32 = 0
    private var output: [UInt8] = []
    /// The stream limits advertised, and the one enforced.
    var limits: AdvertisedStreamLimits
    /// Whether GOAWAY went out: the connection then stays open until its close a second later,
    /// even once nghttp2 has nothing left to do on it, so the client reads GOAWAY before the close.
    private var closesAfterGoAway = false
    private var outputOffset = 0
    /// What the session allocates, reused as the client's is; it must outlive the session.
    private let memory = BlockPool.forNGHTTP2Session()

    /// Takes `descriptor`, a client just accepted and admitted by the gate, onto `loop`.
    init(
        descriptor: Int32,
        client: (address: String, port: Int),
        loop: EventLoop,
        answerFields: AnswerFields,
        serving: MockServing,
        listening: MockServing.Listening,
        tls: TLSServerContext,
        template: SessionTemplate
    ) {
        self.descriptor = descriptor
        self.client = client
        self.loop = loop
        self.answerFields = answerFields
        self.serving = serving
        self.listening = listening
        self.template = template
        limits = AdvertisedStreamLimits(
            initial: template.initialStreamLimit,
            sessionLimit: template.sessionStreamLimit
        )
        ssl = SSL_new(tls.context)
        SSL_set_fd(ssl, descriptor)
        SSL_set_accept_state(ssl)
    }

    /// Starts the handshake, or holds it for a `slow_tls_accept` incident; closes the connection
    /// if it has not chosen HTTP/2 within the handshake timeout (and any hold).
    func start() {
        var allowed = serving.configuration.limits.handshakeTimeout.inNanoseconds
        let delay = serving.faults?.handshakeDelayNanos(nowNanos: EventLoop.now()) ?? 0
        tag = loop.watch(self, descriptor: descriptor, events: 0)
        if delay > 0 {
            serving.stats.update { $0.handshakesDelayed += 1 }
            allowed += delay
            loop.schedule(afterNanos: delay) { [weak self] in self?.beginHandshake() }
        } else {
            beginHandshake()
        }
        loop.schedule(afterNanos: allowed) { [weak self] in
            guard let self, self.state == nil, !self.isClosed else { return }
            serving.stats.update { $0.handshakesTimedOut += 1 }
            close()
        }
    }

    var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// What epoll saw on the socket.
    func handle(events: UInt32) {
        switch phase {
        case .handshaking: shakeHands()
        case .serving:
            if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { readFrames() }
            flush()
        case .held: if events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { close() }
        case .closed: break
        }
    }

    /// Frees TLS and the session, closes the socket and gives back the connection's place.
    func close() {
        guard !isClosed else { return }
        if case .serving(let session, _) = phase {
            nghttp2_session_del(session)
            if state != nil { stopServing() }
        }
        phase = .closed
        SSL_free(ssl)
        loop.forget(tag, descriptor: descriptor)
        Glibc.close(descriptor)
        serving.gate.release()
        streams.removeAll()
        bodies.removeAll()
    }

    private func beginHandshake() {
        guard case .held = phase else { return }
        phase = .handshaking
        shakeHands()
    }

    private func shakeHands() {
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ: watch(EPOLLIN.rawValue)
            case SSL_ERROR_WANT_WRITE: watch(EPOLLOUT.rawValue)
            default:
                ERR_clear_error()
                serving.stats.update { $0.connectionErrors["tls.handshakeFailed", default: 0] += 1 }
                close()
            }
            return
        }
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard let session = makeSession() else { return close() }
        // `selectHTTP2` acknowledges only h2: a protocol chosen is h2, none chosen is a client
        // that may speak HTTP/2 by prior knowledge, which its preface tells.
        phase = .serving(session: session, prefaceDue: length == 0 ? Self.preface.count : 0)
        if length > 0 { startServing() }
        watch(EPOLLIN.rawValue)
        readFrames()
        flush()
    }

    /// HTTP/2's connection preface, which a client without ALPN must open with.
    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The client is known to speak HTTP/2: the connection is counted open, gets its state, and
    /// joins the connections a fault plan's moment strikes.
    private func startServing() {
        let stats = serving.stats
        stats.update { $0.connectionsOpen += 1 }
        listening.tally?.update { $0.handshaken += 1 }
        let state = serving.connectionState(port: client.port, client: client.address, serving: listening)
        self.state = state
        guard let openConnections = serving.openConnections else { return }
        let loop = loop
        let me = UnsafeTransfer(self)
        openConnections.add(ObjectIdentifier(self)) { kind in
            loop.execute {
                guard !me.value.isClosed, let state = me.value.state else { return }
                OpenConnections.apply(kind, to: state, control: me.value, stats: stats)
                me.value.flush()
            }
        }
    }

    /// Counts a connection `startServing` counted out again, as it closes.
    private func stopServing() {
        serving.stats.update { $0.connectionsOpen -= 1 }
        serving.openConnections?.remove(ObjectIdentifier(self))
    }

    private func makeSession() -> OpaquePointer? {
        var session: OpaquePointer?
        var allocator = memory.nghttp2Allocator
        guard
            nghttp2_session_server_new3(
                &session,
                template.callbacks,
                Unmanaged.passUnretained(self).toOpaque(),
                template.options,
                &allocator
            ) == 0, let session
        else { return nil }
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), template.settings, template.settings.count)
        return session
    }

    /// Reads what TLS has and hands it to the session, which calls back for each frame.
    private func readFrames() {
        for _ in 0..<16 {
            guard case .serving(let session, let prefaceDue) = phase else { return }
            let count = loop.readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else {
                let error = SSL_get_error(ssl, count)
                if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
                if error == SSL_ERROR_SSL {
                    serving.stats.update { $0.connectionErrors["tls.read", default: 0] += 1 }
                }
                ERR_clear_error()
                return close()
            }
            if prefaceDue > 0, !checkPreface(Int(count), due: prefaceDue, session: session) { return }
            let used = loop.readBuffer.withUnsafeBytes { nghttp2_session_mem_recv(session, $0.baseAddress, Int(count)) }
            guard used >= 0 else {
                countProtocolError(Int32(used))
                // nghttp2 may have queued GOAWAY with the error's code: it goes out first.
                flush()
                return close()
            }
        }
    }

    /// Counts an HTTP/2 protocol error by nghttp2's name for it (`http2.protocol_error`): what
    /// the mock refused shows in `/stats`.
    func countProtocolError(_ code: Int32) {
        let name = String(cString: nghttp2_strerror(code)).lowercased().replacing(" ", with: "_")
        serving.stats.update { $0.connectionErrors["http2.\(name)", default: 0] += 1 }
    }

    /// Checks the next bytes of a client without ALPN against HTTP/2's preface; refuses it, as
    /// not speaking HTTP/2, on the first that differs.
    private func checkPreface(_ count: Int, due: Int, session: OpaquePointer) -> Bool {
        let offset = Self.preface.count - due
        let checked = min(count, due)
        guard loop.readBuffer[0..<checked].elementsEqual(Self.preface[offset..<(offset + checked)]) else {
            serving.stats.update { $0.connectionsRefusedWithoutH2 += 1 }
            close()
            return false
        }
        phase = .serving(session: session, prefaceDue: due - checked)
        if due == checked {
            serving.stats.update { $0.connectionsWithoutALPN += 1 }
            startServing()
        }
        return true
    }

    /// Writes what the session has queued; stops reading while the socket takes no more, and
    /// closes the connection once the session has nothing left to read or write (after GOAWAY,
    /// a second after it).
    func flush() {
        guard case .serving(let session, _) = phase else { return }
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
            limits.outputCleared()
        }
        while true {
            var chunk: UnsafePointer<UInt8>? = nil
            let length = nghttp2_session_mem_send(session, &chunk)
            guard length > 0, let chunk else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
        }
        limits.rewrite(&output)
        while outputOffset < output.count {
            let offset = outputOffset
            let written = output.withUnsafeBytes {
                SSL_write(ssl, $0.baseAddress! + offset, Int32(output.count - offset))
            }
            guard written > 0 else {
                let error = SSL_get_error(ssl, written)
                guard error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ else {
                    ERR_clear_error()
                    return close()
                }
                return watch(EPOLLOUT.rawValue)
            }
            outputOffset += Int(written)
        }
        guard
            nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
                || closesAfterGoAway
        else { return close() }
        watch(EPOLLIN.rawValue)
    }

    private func watch(_ wanted: UInt32) {
        guard wanted != events, !isClosed else { return }
        events = wanted
        loop.rewatch(tag, descriptor: descriptor, events: wanted)
    }

    // MARK: ConnectionControl

    func advertise(maxConcurrentStreams limit: Int) {
        guard case .serving(let session, _) = phase else { return }
        let entry = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: UInt32(limits.sessionLimit)
            )
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entry, 1) == 0 else { return }
        limits.queue(limit)
    }

    func sendGoAway(lastStream: Int32) {
        guard case .serving(let session, _) = phase else { return }
        ConnectionControlWords.goAwayReason.withUnsafeBufferPointer {
            _ = nghttp2_submit_goaway(
                session,
                UInt8(NGHTTP2_FLAG_NONE.rawValue),
                lastStream,
                NGHTTP2_NO_ERROR.rawValue,
                $0.baseAddress,
                $0.count
            )
        }
        closesAfterGoAway = true
        loop.schedule(afterNanos: 1_000_000_000) { [weak self] in self?.close() }
    }

    /// At the loop's next turn, after this read's answers are flushed: nghttp2 may be calling
    /// back into this connection now.
    func reset() {
        loop.schedule(afterNanos: 0) { [weak self] in
            guard let self, !self.isClosed else { return }
            flush()
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            close()
        }
    }
}

/// Carries a loop-bound object into a `@Sendable` closure that runs on that loop's thread.
struct UnsafeTransfer<Value: AnyObject>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
