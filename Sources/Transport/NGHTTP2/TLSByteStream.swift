import CNGHTTP2
import EventLoops
import Wire

#if canImport(Glibc)
import Glibc
#endif

/// The bytes under an HTTP/2 connection: a non-blocking TCP socket (or one end of a BIO pair),
/// its connect and TLS handshake each bounded by the connect timeout, then reads and writes.
///
/// Nothing blocks: `advance` moves an opening stream on whenever its owner's poll loop says the
/// socket is ready, and each read or write does what the socket allows now. The phase holds
/// what exists in it, and nothing else exists: no TLS session before the handshake starts, no
/// deadline once the stream is open.
final class TLSByteStream {
    /// Where the stream stands, with what it has there.
    enum Phase {
        /// TCP connecting, to be done by `deadline`; or, over `memory` (a BIO pair's end, which
        /// the stream owns until the handshake takes it), about to shake hands.
        case connecting(deadline: UInt64, memory: OpaquePointer? = nil)
        /// The TLS handshake under way over `ssl`, to be done by `deadline`; `wantsWrite` when
        /// it waits to write rather than to read.
        case handshaking(ssl: OpaquePointer, deadline: UInt64, wantsWrite: Bool)
        /// Open: HTTP/2 (ALPN `h2`) agreed over `ssl`.
        case open(ssl: OpaquePointer)
        /// Closed: by `close`, or by the failure that kept it from opening.
        case closed(ConnectionFailure?)
    }

    /// What `advance` left the stream as.
    enum Progress {
        case opening, open
        case failed(ConnectionFailure)
    }

    /// What a read gave.
    enum Read {
        /// This many bytes, at the start of the buffer.
        case bytes(Int)
        /// Nothing now; the socket will say when.
        case wouldBlock
        /// The server closed the stream, or TLS failed: why.
        case closed(String)
    }

    /// What a write did.
    enum Write {
        /// This many bytes went.
        case wrote(Int)
        /// The socket takes nothing more now.
        case wouldBlock
        /// TLS failed: why.
        case failed(String)
    }

    private(set) var phase: Phase
    /// The socket, -1 in memory and once closed.
    private(set) var socket: Int32 = -1
    /// The local TCP port: identifies the connection in reports.
    private(set) var localPort = 0
    /// `host:port`, or the host and `in memory`: how failures name the server.
    let target: String
    private let host: String
    private let tls: TLSClientContext
    private let connectTimeoutNanos: UInt64

    /// Starts connecting to `address` without waiting; a failure to even start leaves the
    /// stream closed, and `advance` reports it.
    init(
        address: SocketAddress,
        host: String,
        port: Int,
        tls: TLSClientContext,
        connectTimeoutNanos: UInt64,
        now: UInt64
    ) {
        target = "\(host):\(port)"
        self.host = host
        self.tls = tls
        self.connectTimeoutNanos = connectTimeoutNanos
        phase = .connecting(deadline: now &+ connectTimeoutNanos)
        socket = Glibc.socket(
            address.family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0
        )
        guard socket >= 0 else {
            phase = .closed(
                ConnectionFailure(.clientError, "cannot open a socket: \(String(cString: strerror(errno)))")
            )
            return
        }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let status = address.withSockaddr { Glibc.connect(socket, $0, address.length) }
        if status == 0 {
            if let failure = startHandshake(now: now) { close(failure) }
        } else if errno != EINPROGRESS {
            close(ConnectionFailure.connect(errno: errno, to: target))
        }
    }

    /// Runs TLS over `bio`, one end of a BIO pair whose other end a peer in this process serves;
    /// the stream owns `bio` from here on.
    init(memory bio: OpaquePointer, host: String, tls: TLSClientContext, now: UInt64) {
        target = "\(host) in memory"
        self.host = host
        self.tls = tls
        connectTimeoutNanos = UInt64(Int64.max)
        phase = .connecting(deadline: .max, memory: bio)
        if let failure = startHandshake(now: now) { close(failure) }
    }

    deinit {
        close(nil)
    }

    /// When the opening phase must have finished; nil once open or closed.
    var deadline: UInt64? {
        switch phase {
        case .connecting(let deadline, _), .handshaking(_, let deadline, _): deadline
        case .open, .closed: nil
        }
    }

    /// What `poll` should wait for while opening (reading and writing are the owner's to ask).
    var openingPollEvents: Int16 {
        switch phase {
        case .connecting: Int16(POLLOUT)
        case .handshaking(_, _, let wantsWrite): wantsWrite ? Int16(POLLOUT) : Int16(POLLIN)
        case .open, .closed: 0
        }
    }

    /// Moves an opening stream on: finishes connecting, steps the handshake, or fails past the
    /// deadline; an open stream stays open.
    func advance(now: UInt64) -> Progress {
        let failure: ConnectionFailure?
        switch phase {
        case .connecting(let deadline, _): failure = finishConnecting(now: now, deadline: deadline)
        case .handshaking(let ssl, let deadline, _): failure = continueHandshake(ssl, now: now, deadline: deadline)
        case .open: return .open
        case .closed(let reason):
            return .failed(reason ?? ConnectionFailure(.clientError, "the stream to \(target) is closed"))
        }
        if let failure {
            close(failure)
            return .failed(failure)
        }
        if case .open = phase { return .open }
        return .opening
    }

    /// Reads what TLS has into `buffer`.
    func read(into buffer: inout [UInt8]) -> Read {
        guard case .open(let ssl) = phase else { return .closed("the stream is not open") }
        let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        if count > 0 { return .bytes(Int(count)) }
        let error = SSL_get_error(ssl, count)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .wouldBlock }
        return .closed(
            error == SSL_ERROR_ZERO_RETURN || error == SSL_ERROR_SYSCALL
                ? "the server closed the connection" : "TLS: \(TLSClientContext.lastError())"
        )
    }

    /// Writes from `bytes` what the socket takes now.
    func write(_ bytes: UnsafeRawBufferPointer) -> Write {
        guard case .open(let ssl) = phase else { return .failed("the stream is not open") }
        let written = SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
        if written > 0 { return .wrote(Int(written)) }
        let error = SSL_get_error(ssl, written)
        if error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ { return .wouldBlock }
        return .failed("TLS write failed: \(TLSClientContext.lastError())")
    }

    /// Frees TLS and closes the socket, for `reason` when it failed; the stream is closed from
    /// here on.
    func close(_ reason: ConnectionFailure?) {
        switch phase {
        case .handshaking(let ssl, _, _), .open(let ssl): SSL_free(ssl)
        case .connecting(_, let memory?): BIO_free(memory)
        case .connecting, .closed: break
        }
        phase = .closed(reason)
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }

    private func finishConnecting(now: UInt64, deadline: UInt64) -> ConnectionFailure? {
        var check = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        guard poll(&check, 1, 0) > 0 else {
            guard now >= deadline else { return nil }
            return ConnectionFailure(
                .connectTimeout,
                "TCP connect to \(target) did not finish within \(connectTimeoutNanos / 1_000_000) ms"
            )
        }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
        guard error == 0 else { return ConnectionFailure.connect(errno: error, to: target) }
        return startHandshake(now: now)
    }

    /// Starts TLS over the socket, or over the BIO pair's end.
    private func startHandshake(now: UInt64) -> ConnectionFailure? {
        guard let ssl = SSL_new(tls.context) else {
            return ConnectionFailure(.clientError, "SSL_new failed: \(TLSClientContext.lastError())")
        }
        if case .connecting(let deadline, let memory?) = phase {
            SSL_set_bio(ssl, memory, memory)
            // The handshake owns the BIO now: the phase no longer holds it.
            phase = .connecting(deadline: deadline)
        } else {
            localPort = ListeningSocket.localPort(of: socket)
            SSL_set_fd(ssl, socket)
        }
        if TLSIdentity.isIPAddress(host) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            _ = pb_ssl_set_server_name(ssl, host)
            SSL_set1_host(ssl, host)
        }
        let deadline = now &+ connectTimeoutNanos
        phase = .handshaking(ssl: ssl, deadline: deadline, wantsWrite: false)
        return continueHandshake(ssl, now: now, deadline: deadline)
    }

    private func continueHandshake(_ ssl: OpaquePointer, now: UInt64, deadline: UInt64) -> ConnectionFailure? {
        ERR_clear_error()
        let result = SSL_connect(ssl)
        if result == 1 { return agreeOnHTTP2(ssl) }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE {
            phase = .handshaking(ssl: ssl, deadline: deadline, wantsWrite: error == SSL_ERROR_WANT_WRITE)
            guard now >= deadline else { return nil }
            return ConnectionFailure(
                .connectTimeout,
                "the TLS handshake with \(target) did not finish within \(connectTimeoutNanos / 1_000_000) ms"
            )
        }
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK {
            return ConnectionFailure(
                .certificateUntrusted,
                "the certificate of \(target) is not trusted: \(String(cString: X509_verify_cert_error_string(verify)))"
            )
        }
        let detail =
            error == SSL_ERROR_SYSCALL || error == SSL_ERROR_ZERO_RETURN
            ? "the server closed the connection" : TLSClientContext.lastError()
        return ConnectionFailure(.tlsHandshake, "TLS handshake with \(target) failed: \(detail)")
    }

    /// The handshake is done: open if the server agreed to HTTP/2.
    private func agreeOnHTTP2(_ ssl: OpaquePointer) -> ConnectionFailure? {
        phase = .open(ssl: ssl)
        var protocolName: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard let protocolName, UnsafeBufferPointer(start: protocolName, count: Int(length)).elementsEqual("h2".utf8)
        else {
            return ConnectionFailure(.tlsHandshake, "\(target) did not agree to HTTP/2 (ALPN h2)")
        }
        return nil
    }
}
