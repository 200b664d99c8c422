import CNGHTTP2

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/2 connection over TLS: a socket, a libssl session, an nghttp2 client session.
///
/// Frames nghttp2 queues are gathered into one buffer and written with one `SSL_write` per
/// `flush`, so a loop that submitted a hundred requests costs one TLS record batch and one
/// `sendto`, not one per frame. The socket is blocking only while connecting and handshaking.
final class HTTP2Connection {
    private(set) var socket: Int32 = -1
    private var ssl: OpaquePointer?
    private var session: OpaquePointer?
    /// The local TCP port: identifies the connection in reports.
    private(set) var localPort = 0
    /// Requests on this connection not yet finished, by stream.
    private(set) var open: [Int32: StreamSlot] = [:]
    /// Whether the connection is still up (it may have been told to go away).
    private(set) var isOpen = false
    /// Requests that finished while bytes were read or written, for the client to hand back.
    var finished: [StreamSlot] = []
    /// Requests the server refused before processing them (REFUSED_STREAM: over its stream
    /// limit, or past a GOAWAY's last stream), which may be sent again (RFC 9113 §8.7).
    var refused: [StreamSlot] = []
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var input = [UInt8](repeating: 0, count: 64 * 1024)
    /// The header fields of the request being submitted; nghttp2 copies the array, not the bytes.
    private var fields = UnsafeMutableBufferPointer<nghttp2_nv>.allocate(capacity: 16)

    /// Whether new requests may start here: up, and no GOAWAY received.
    var acceptsRequests: Bool { isOpen && nghttp2_session_check_request_allowed(session) != 0 }

    /// Whether bytes are waiting for the socket to accept them.
    var hasPendingOutput: Bool { outputOffset < output.count }

    /// Connects to `host:port` and completes the TLS handshake with ALPN `h2`.
    /// - Throws: `TransportError` naming the step that failed.
    init(host: String, port: Int, tls: TLSClientContext, connectTimeoutMs: Int) throws(TransportError) {
        socket = try Self.connect(host: host, port: port, timeoutMs: connectTimeoutMs)
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(socket, $0, &length) }
        }
        localPort = Self.port(of: local)
        try handshake(host: host, tls: tls)
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        try startSession()
        isOpen = true
    }

    deinit {
        fields.deallocate()
        if let session { nghttp2_session_del(session) }
        if let ssl { SSL_free(ssl) }
        if socket >= 0 { close(socket) }
    }

    /// Queues a prepared request on this connection; its bytes leave at the next `flush`.
    /// `authority` is the client's `:authority` field.
    func submit(_ slot: StreamSlot, authority: nghttp2_nv) -> Bool {
        guard let headers = slot.headers else { return false }
        let count = 6 + headers.fields.count
        if fields.count < count {
            fields.deallocate()
            fields = .allocate(capacity: count)
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
        fields[3] = slot.path.field(named: .path)
        for (index, field) in headers.fields.enumerated() { fields[4 + index] = field }
        fields[count - 2] = slot.apnsID.field(named: .apnsID)
        fields[count - 1] = slot.contentLength.field(named: .contentLength)
        let me = Unmanaged.passUnretained(slot).toOpaque()
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: me), read_callback: readBody)
        let streamID = nghttp2_submit_request(session, nil, fields.baseAddress, count, &provider, me)
        guard streamID > 0 else { return false }
        slot.streamID = streamID
        open[streamID] = slot
        return true
    }

    /// Cancels `slot`'s stream (its deadline passed); it finishes as timed out.
    func cancel(_ slot: StreamSlot) {
        slot.timedOut = true
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), slot.streamID, NGHTTP2_CANCEL.rawValue)
    }

    /// Reads what the socket has, hands it to nghttp2, then writes what nghttp2 has queued.
    func transfer() {
        guard isOpen else { return }
        while true {
            let count = input.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                let used = input.withUnsafeBytes { nghttp2_session_mem_recv(session, $0.baseAddress, Int(count)) }
                if used < 0 { return fail("HTTP/2 protocol error: \(String(cString: nghttp2_strerror(Int32(used))))") }
                continue
            }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { break }
            let detail =
                error == SSL_ERROR_ZERO_RETURN || error == SSL_ERROR_SYSCALL
                ? "the server closed the connection" : "TLS: \(TLSClientContext.lastError())"
            return fail(detail)
        }
        flush()
    }

    /// Writes what nghttp2 has queued, as one buffer.
    func flush() {
        guard isOpen else { return }
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
        }
        while true {
            var chunk: UnsafePointer<UInt8>? = nil
            let length = nghttp2_session_mem_send(session, &chunk)
            if length < 0 { return fail("HTTP/2 protocol error: \(String(cString: nghttp2_strerror(Int32(length))))") }
            guard length > 0, let chunk else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
        }
        while outputOffset < output.count {
            let written = output.withUnsafeBytes {
                SSL_write(ssl, $0.baseAddress! + outputOffset, Int32($0.count - outputOffset))
            }
            if written > 0 {
                outputOffset += Int(written)
                continue
            }
            let error = SSL_get_error(ssl, written)
            if error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ { break }
            return fail("TLS write failed: \(TLSClientContext.lastError())")
        }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 && !hasPendingOutput {
            fail("the server ended the connection (GOAWAY)")
        }
    }

    /// Ends the connection: every request still on it finishes as failed with `reason`.
    func fail(_ reason: String) {
        guard isOpen else { return }
        isOpen = false
        for slot in open.values.sorted(by: { $0.streamID < $1.streamID }) {
            if slot.status == 0 && !slot.timedOut { slot.failure = reason }
            finished.append(slot)
        }
        open.removeAll()
        nghttp2_session_del(session)
        session = nil
        close(socket)
        socket = -1
    }

    fileprivate func streamClosed(_ slot: StreamSlot, streamID: Int32, errorCode: UInt32) {
        open[streamID] = nil
        if slot.status == 0 && !slot.timedOut && errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            refused.append(slot)
            return
        }
        if slot.status == 0 && !slot.timedOut {
            slot.failure = "the server reset the stream: \(String(cString: nghttp2_http2_strerror(errorCode)))"
        }
        finished.append(slot)
    }

    private func startSession() throws(TransportError) {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0 else {
            throw TransportError.setup("nghttp2: out of memory")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, receiveHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, receiveData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, closeStream)
        var session: OpaquePointer?
        guard nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0 else {
            throw TransportError.setup("nghttp2: cannot create a session")
        }
        self.session = session
        let settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
    }

    private func handshake(host: String, tls: TLSClientContext) throws(TransportError) {
        guard let ssl = SSL_new(tls.context) else { throw TransportError.setup("SSL_new failed") }
        self.ssl = ssl
        SSL_set_fd(ssl, socket)
        if Self.isIPAddress(host) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            _ = pb_ssl_set_server_name(ssl, host)
            SSL_set1_host(ssl, host)
        }
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            let detail =
                verify != X509_V_OK
                ? String(cString: X509_verify_cert_error_string(verify)) : TLSClientContext.lastError()
            throw TransportError.setup("TLS handshake with \(host) failed: \(detail)")
        }
        var protocolName: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard let protocolName, UnsafeBufferPointer(start: protocolName, count: Int(length)).elementsEqual("h2".utf8)
        else {
            throw TransportError.setup("\(host) did not agree to HTTP/2 (ALPN h2)")
        }
    }

    private static func connect(host: String, port: Int, timeoutMs: Int) throws(TransportError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found else {
            throw TransportError.setup("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        var lastError: Int32 = 0
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            let socket = Glibc.socket(
                address.pointee.ai_family,
                address.pointee.ai_socktype,
                address.pointee.ai_protocol
            )
            guard socket >= 0 else { continue }
            var timeout = timeval(tv_sec: timeoutMs / 1000, tv_usec: (timeoutMs % 1000) * 1000)
            setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var one: Int32 = 1
            setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return socket }
            lastError = errno
            close(socket)
        }
        throw TransportError.setup("cannot connect to \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    private static func port(of address: sockaddr_storage) -> Int {
        var address = address
        let family = address.ss_family
        return withUnsafeBytes(of: &address) { bytes in
            family == sa_family_t(AF_INET6)
                ? Int(UInt16(bigEndian: bytes.load(as: sockaddr_in6.self).sin6_port))
                : Int(UInt16(bigEndian: bytes.load(as: sockaddr_in.self).sin_port))
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

private func slot(_ session: OpaquePointer?, _ streamID: Int32) -> StreamSlot? {
    guard let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
    return Unmanaged<StreamSlot>.fromOpaque(pointer).takeUnretainedValue()
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
    guard let frame, let stream = slot(session, frame.pointee.hd.stream_id) else { return 0 }
    stream.header(
        name: UnsafeRawBufferPointer(start: name, count: nameLength),
        value: UnsafeRawBufferPointer(start: value, count: valueLength)
    )
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
    slot(session, streamID)?.appendBody(UnsafeRawBufferPointer(start: data, count: length))
    return 0
}

private func closeStream(
    _ session: OpaquePointer?,
    _ streamID: Int32,
    _ errorCode: UInt32,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let userData, let stream = slot(session, streamID) else { return 0 }
    Unmanaged<HTTP2Connection>.fromOpaque(userData).takeUnretainedValue()
        .streamClosed(stream, streamID: streamID, errorCode: errorCode)
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
    let stream = Unmanaged<StreamSlot>.fromOpaque(pointer).takeUnretainedValue()
    let count = min(length, stream.body.count - stream.bodyOffset)
    buffer.update(from: stream.body.bytes + stream.bodyOffset, count: count)
    stream.bodyOffset += count
    if stream.bodyOffset == stream.body.count { flags?.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
    return count
}
