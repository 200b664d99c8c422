import CNGHTTP2

/// The session's callbacks: each request's headers and body gathered into an `InboundPush`, and
/// answered by `PushResponder` once its stream has ended.
extension ServerConnection {
    /// Points `callbacks` at this file's functions.
    static func install(in callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, beginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, receiveHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, receiveData)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, receiveFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, closeStream)
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks, receiveInvalidFrame)
    }

    /// A request begins on `stream`; refused unprocessed (RST_STREAM REFUSED_STREAM) past the
    /// stream limit (`AdvertisedStreamLimits.enforced`), and after GOAWAY, whose last stream ID
    /// it is above: the client sends it again elsewhere, so answering it would count it twice.
    fileprivate func begin(_ stream: Int32, session: OpaquePointer?) {
        guard let state else { return }
        guard state.openStreams < limits.enforced, !state.wentAway else {
            nghttp2_submit_rst_stream(
                session,
                UInt8(NGHTTP2_FLAG_NONE.rawValue),
                stream,
                NGHTTP2_REFUSED_STREAM.rawValue
            )
            return
        }
        state.opened(stream)
        var push = InboundPush(method: "", path: "")
        push.connection = state.port
        push.streamsOpen = state.openStreams
        arriving = (stream, push)
    }

    /// A header the request whose block is arriving on `stream` is judged by.
    fileprivate func header(_ field: InboundPush.Field, _ value: String, on stream: Int32) {
        guard arriving?.stream == stream else { return }
        arriving?.push.set(field, to: value)
    }

    /// The request's header block has ended: it joins the streams in progress, and whether its
    /// body is kept is known now.
    fileprivate func headersEnded(on stream: Int32) {
        guard let state, let request = arriving, request.stream == stream else { return }
        arriving = nil
        streams[stream] = .receiving(
            request.push,
            keepsBody: listening.responder.keepsBody(of: request.push, on: state)
        )
    }

    /// The client reset `stream`.
    fileprivate func streamReset(_ stream: Int32) {
        if streams[stream]?.isReceiving == true { serving.stats.update { $0.streamsResetByClient += 1 } }
    }

    /// `stream` has closed, answered or reset.
    fileprivate func streamClosed(_ stream: Int32) {
        bodies[stream] = nil
        if streams.removeValue(forKey: stream) != nil { state?.closed(1) }
        // Closed with its header block unfinished (a malformed block refused by nghttp2).
        if arriving?.stream == stream {
            arriving = nil
            state?.closed(1)
        }
    }

    /// The request on `stream` has ended: answered now, later (injected latency, a stall), or
    /// never (a hang: the stream stays open until the client resets it or leaves).
    fileprivate func respond(on stream: Int32) {
        guard let state else { return }
        let progress = streams.updateValue(.answered, forKey: stream)
        guard case .receiving(let request, _) = progress else {
            if case .none = progress { streams[stream] = nil }
            return
        }
        let answer = listening.responder.decide(request, on: state, control: self)
        if answer.withheld { return }
        guard answer.delayNanos > 0 else { return write(answer, on: stream) }
        // Answered later on this loop, which serves every other stream meanwhile; held strongly,
        // so an answer whose connection has closed is still counted as never written.
        loop.schedule(afterNanos: answer.delayNanos) { [self] in
            write(answer, on: stream)
            flush()
        }
    }

    /// Writes `answer` on `stream`: HEADERS, and DATA with the JSON body for an error.
    private func write(_ answer: PushResponder.Answer, on stream: Int32) {
        guard let state, case .serving(let session, _) = phase, streams[stream] != nil else {
            return listening.responder.count(answer, writtenFrom: nil)
        }
        listening.responder.writing(answer, on: state, control: self)
        if let body = answer.body { bodies[stream] = (body, 0) }
        answerFields.gather(answer)
        answerFields.withFields { fields in
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readBody)
            if answer.body != nil {
                _ = nghttp2_submit_response(session, stream, fields.baseAddress, fields.count, &provider)
            } else {
                _ = nghttp2_submit_response(session, stream, fields.baseAddress, fields.count, nil)
            }
        }
        listening.responder.wrote(answer, on: state, control: self)
    }
}

// The callbacks below reach the connection through nghttp2's user data without retaining it
// (`_withUnsafeGuaranteedRef`): the loop holds the connection for as long as its session lives.

/// Runs `body` on the connection whose session called back.
private func withConnection(_ userData: UnsafeMutableRawPointer?, _ body: (ServerConnection) -> Void) {
    guard let userData else { return }
    Unmanaged<ServerConnection>.fromOpaque(userData)._withUnsafeGuaranteedRef(body)
}

/// Whether `frame` is a HEADERS frame that opens a request.
private func isRequestHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Bool {
    UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue
        && frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
}

private func beginHeaders(
    _ session: OpaquePointer?,
    _ frame: UnsafePointer<nghttp2_frame>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, isRequestHeaders(frame) else { return 0 }
    withConnection(userData) { $0.begin(frame.pointee.hd.stream_id, session: session) }
    return 0
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
    guard let frame, isRequestHeaders(frame),
        let field = InboundPush.Field(named: UnsafeRawBufferPointer(start: name, count: nameLength))
    else { return 0 }
    let value = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    withConnection(userData) { $0.header(field, value, on: frame.pointee.hd.stream_id) }
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
        connection.streams[streamID]?.receive(UnsafeRawBufferPointer(start: data, count: length))
    }
    return 0
}

private func receiveFrame(
    _ session: OpaquePointer?,
    _ frame: UnsafePointer<nghttp2_frame>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    let stream = frame.pointee.hd.stream_id
    let ended = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    withConnection(userData) { connection in
        switch UInt32(frame.pointee.hd.type) {
        case NGHTTP2_HEADERS.rawValue:
            if isRequestHeaders(frame) { connection.headersEnded(on: stream) }
            if ended { connection.respond(on: stream) }
        case NGHTTP2_DATA.rawValue:
            if ended { connection.respond(on: stream) }
        case NGHTTP2_RST_STREAM.rawValue:
            connection.streamReset(stream)
        case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            connection.limits.acknowledge()
        default: break
        }
    }
    return 0
}

private func closeStream(
    _ session: OpaquePointer?,
    _ streamID: Int32,
    _ errorCode: UInt32,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    withConnection(userData) { $0.streamClosed(streamID) }
    return 0
}

/// A frame that broke the protocol, which nghttp2 answers itself (RST_STREAM or GOAWAY): counted.
private func receiveInvalidFrame(
    _ session: OpaquePointer?,
    _ frame: UnsafePointer<nghttp2_frame>?,
    _ code: Int32,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    withConnection(userData) { $0.countProtocolError(code) }
    return 0
}

/// Reads an error answer's JSON body into a DATA frame.
private func readBody(
    _ session: OpaquePointer?,
    _ streamID: Int32,
    _ buffer: UnsafeMutablePointer<UInt8>?,
    _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?,
    _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    var count = 0
    withConnection(userData) { connection in
        guard let body = connection.bodies[streamID], let buffer else { return }
        count = min(length, body.bytes.count - body.offset)
        body.bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + body.offset, count: count) }
        if body.offset + count == body.bytes.count {
            flags?.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
            connection.bodies[streamID] = nil
        } else {
            connection.bodies[streamID]?.offset += count
        }
    }
    return count
}
