import CNGHTTP2
import Wire

/// The far end of an in-memory connection: a TLS server and an nghttp2 server session that
/// answer every push `200` with its `apns-id`, as APNs does, over one end of a BIO pair.
///
/// It exists so that a push's client-side work (HTTP/2 framing, TLS records both ways, the
/// answer's parsing) can be run and counted with no socket and no kernel in the way: the
/// instruction counts of `pushbench hotpath --instructions` come from a client talking to this
/// peer. Its own work is done in `serve`, which the counting leaves out. It checks nothing; the
/// mock is the server that checks.
///
/// A `Behaviour` makes it a server that holds a connection to few streams, refuses streams,
/// goes away part-way or never answers a PING: the connection's handling of each is tested with
/// no socket, no timing of the kernel's and nothing else in the way.
public final class InMemoryAPNsPeer {
    /// How the peer treats its client; the default answers everything, as APNs does.
    public struct Behaviour: Sendable {
        /// The SETTINGS_MAX_CONCURRENT_STREAMS it announces.
        public var maxConcurrentStreams: UInt32 = 1000
        /// Every n-th request it receives (counting from 1) is refused unprocessed
        /// (RST_STREAM REFUSED_STREAM) rather than answered.
        public var refuseEvery: Int? = nil
        /// After receiving this many requests it answers them, sends GOAWAY (NO_ERROR) whose last
        /// stream ID is the last of them, and processes nothing more.
        public var goAwayAfter: Int? = nil
        /// Whether it answers requests at all (when not, they stay open).
        public var answers = true
        /// Whether it acknowledges PINGs.
        public var answersPing = true

        /// The default: every request answered, every PING acknowledged.
        public init() {}
    }

    /// What the peer saw, for tests.
    public struct Seen: Sendable, Equatable {
        /// Requests received in all, and the most it held open at once.
        public var requests = 0
        public var peakOpenStreams = 0
        /// Requests it refused, and whether it sent GOAWAY.
        public var refused = 0
        public var wentAway = false
    }

    private let behaviour: Behaviour
    /// What it saw so far.
    public private(set) var seen = Seen()
    /// Streams the client has open: requests received and not yet answered or refused on the
    /// wire (an answer leaves at the end of `serve`), and those it holds.
    private var openStreams = 0
    private var closing = 0
    private let context: TLSServerContext
    private let ssl: OpaquePointer
    private var session: OpaquePointer?
    /// What the server session allocates, reused as the client's is.
    private let memory = BlockPool.forNGHTTP2Session()
    /// The `apns-id` of each request in progress, echoed in its answer.
    fileprivate var requestIDs: [Int32: EchoedID] = [:]
    private var input = [UInt8](repeating: 0, count: 64 * 1024)
    private var output: [UInt8] = []

    /// Sets up TLS with `identity` over `bio`, which the peer owns from here on; the handshake
    /// happens in `serve`, interleaved with the client's.
    init(identity: TLSIdentity, bio: OpaquePointer, behaviour: Behaviour = Behaviour()) throws(TransportError) {
        self.behaviour = behaviour
        do {
            context = try TLSServerContext(identity: identity)
        } catch {
            BIO_free(bio)
            throw error
        }
        guard let ssl = SSL_new(context.context) else {
            BIO_free(bio)
            throw TransportError.setup("SSL_new failed: \(TLSClientContext.lastError())")
        }
        self.ssl = ssl
        SSL_set_bio(ssl, bio, bio)
        SSL_set_accept_state(ssl)
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0 else {
            throw TransportError.setup("nghttp2 could not create callbacks")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, peerReceiveHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, peerReceiveFrame)
        var options: OpaquePointer?
        guard nghttp2_option_new(&options) == 0 else { throw TransportError.setup("nghttp2 could not create options") }
        defer { nghttp2_option_del(options) }
        nghttp2_option_set_no_auto_ping_ack(options, behaviour.answersPing ? 0 : 1)
        var allocator = memory.nghttp2Allocator
        guard
            nghttp2_session_server_new3(
                &session,
                callbacks,
                Unmanaged.passUnretained(self).toOpaque(),
                options,
                &allocator
            ) == 0
        else {
            throw TransportError.setup("nghttp2 could not create a server session")
        }
        let settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: behaviour.maxConcurrentStreams
            )
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        SSL_free(ssl)
    }

    /// Reads what the client wrote (the handshake's next step, or frames), answers every
    /// request that has ended, and writes its frames back.
    public func serve() {
        guard SSL_is_init_finished(ssl) == 1 || SSL_do_handshake(ssl) == 1 else { return }
        while true {
            let count = input.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { break }
            _ = input.withUnsafeBytes { nghttp2_session_mem_recv(session, $0.baseAddress, Int(count)) }
        }
        output.removeAll(keepingCapacity: true)
        while true {
            var chunk: UnsafePointer<UInt8>? = nil
            let length = nghttp2_session_mem_send(session, &chunk)
            guard length > 0, let chunk else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
        }
        openStreams -= closing
        closing = 0
        guard !output.isEmpty else { return }
        _ = output.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
    }

    /// A request has fully arrived on `streamID`: answered, refused, held or let go unprocessed,
    /// as the behaviour says.
    fileprivate func received(_ streamID: Int32) {
        seen.requests += 1
        openStreams += 1
        seen.peakOpenStreams = max(seen.peakOpenStreams, openStreams)
        if let limit = behaviour.goAwayAfter, seen.requests > limit { return }
        if let every = behaviour.refuseEvery, seen.requests % every == 0 {
            seen.refused += 1
            closing += 1
            requestIDs[streamID] = nil
            nghttp2_submit_rst_stream(
                session,
                UInt8(NGHTTP2_FLAG_NONE.rawValue),
                streamID,
                NGHTTP2_REFUSED_STREAM.rawValue
            )
        } else if behaviour.answers {
            closing += 1
            answer(streamID)
        }
        if let limit = behaviour.goAwayAfter, seen.requests == limit {
            seen.wentAway = true
            nghttp2_submit_goaway(
                session,
                UInt8(NGHTTP2_FLAG_NONE.rawValue),
                streamID,
                NGHTTP2_NO_ERROR.rawValue,
                nil,
                0
            )
        }
    }

    /// Answers `streamID` with `200` and its `apns-id`.
    private func answer(_ streamID: Int32) {
        var echoed = requestIDs.removeValue(forKey: streamID) ?? EchoedID()
        echoed.withBytes { id in
            let fields = [
                nghttp2_nv(
                    name: StaticName.status.bytes,
                    value: StaticName.ok.bytes,
                    namelen: StaticName.status.count,
                    valuelen: StaticName.ok.count,
                    flags: StaticName.noCopy
                ),
                // nghttp2 copies the value, which lives only for this call.
                nghttp2_nv(
                    name: StaticName.apnsID.bytes,
                    value: UnsafeMutablePointer(mutating: id.baseAddress?.assumingMemoryBound(to: UInt8.self)),
                    namelen: StaticName.apnsID.count,
                    valuelen: id.count,
                    flags: UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue)
                ),
            ]
            _ = nghttp2_submit_response(session, streamID, fields, id.isEmpty ? 1 : 2, nil)
        }
    }
}

private func peerReceiveHeader(
    _ session: OpaquePointer?,
    _ frame: UnsafePointer<nghttp2_frame>?,
    _ name: UnsafePointer<UInt8>?,
    _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?,
    _ valueLength: Int,
    _ flags: UInt8,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let userData, let name, let value, nameLength == StaticName.apnsID.count,
        memcmp(name, StaticName.apnsID.bytes, nameLength) == 0
    else { return 0 }
    Unmanaged<InMemoryAPNsPeer>.fromOpaque(userData).takeUnretainedValue()
        .requestIDs[frame.pointee.hd.stream_id] = EchoedID(UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

/// A request's `apns-id`, held inline (up to 48 bytes; APNs' are 36) so that keeping it for the
/// answer allocates nothing.
private struct EchoedID {
    private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    private var count = 0

    /// No `apns-id`: the answer carries none.
    init() {}

    /// The first 48 bytes of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        count = min(bytes.count, MemoryLayout.size(ofValue: storage))
        let kept = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<count]))
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: kept) }
    }

    /// Calls `body` with the bytes kept.
    mutating func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let count = count
        return withUnsafeBytes(of: &storage) { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
}

private func peerReceiveFrame(
    _ session: OpaquePointer?,
    _ frame: UnsafePointer<nghttp2_frame>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let userData, frame.pointee.hd.stream_id > 0,
        frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    else { return 0 }
    let type = UInt32(frame.pointee.hd.type)
    guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue else { return 0 }
    Unmanaged<InMemoryAPNsPeer>.fromOpaque(userData).takeUnretainedValue().received(frame.pointee.hd.stream_id)
    return 0
}
