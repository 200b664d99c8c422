import NIOCore
import NIOHPACK
import NIOHTTP2
import Wire

/// Reads an HTTP/2 connection's requests as frames and writes APNs' answer to each stream.
///
/// It sits right after `NIOHTTP2Handler`, with no stream multiplexer: a push is a HEADERS frame
/// and a DATA frame or two, and giving each one a channel and a pipeline of its own cost more
/// than everything the mock checks about it (a bare responder answered 1.5 times as many
/// requests per second this way at one event loop, `Benchmarks/mock-vs-bare.sh`). So the streams
/// in progress are a dictionary here, and this handler does what the multiplexer did for them:
/// it returns the flow-control window as requests are read, and flushes the answers of one read
/// together.
///
/// A success is a single HEADERS frame with END_STREAM; an error is HEADERS then a DATA frame
/// with the JSON reason, as Apple's response samples show. Errors on one stream close that
/// stream only, never the connection.
final class PushConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let responder: PushResponder
    /// The connection's state; touched only on its event loop, as this handler is.
    private let connection: ConnectionState
    /// The streams the client has opened and that have not closed yet.
    private var streams: [HTTP2StreamID: StreamProgress] = [:]
    /// Whether answers were written during this read and wait for its end to be flushed.
    private var flushPending = false
    /// Whether a read is under way: frames are arriving and `channelReadComplete` will follow.
    private var reading = false
    /// Streams whose answers this read wrote: they close for the client only once the read's
    /// answers are flushed, so the pushes still arriving in this read saw them open.
    private var closedDuringRead = 0

    /// The flow-control window every stream and the connection start with (APNs' and HTTP/2's
    /// default), which this handler tops back up once half of it is used.
    private static let windowSize = 65535

    /// What the connection's state does to the channel (SETTINGS, GOAWAY, a reset).
    private let control: ChannelControl

    init(responder: PushResponder, connection: ConnectionState, control: ChannelControl) {
        self.responder = responder
        self.connection = connection
        self.control = control
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        reading = true
        switch frame.payload {
        case .headers(let headers):
            if streams[frame.streamID] == nil {
                connection.opened(Int32(frame.streamID))
                var push = Self.inboundPush(from: headers.headers)
                push.connection = connection.port
                push.streamsOpen = connection.openStreams
                let keepsBody = responder.keepsBody(of: push, on: connection)
                streams[frame.streamID] = .receiving(push, keepsBody: keepsBody)
            }
            if headers.endStream { respond(on: frame.streamID, context: context) }
        case .data(let data):
            if case .byteBuffer(let buffer) = data.data {
                buffer.withUnsafeReadableBytes { streams[frame.streamID]?.receive($0) }
            }
            if data.endStream { respond(on: frame.streamID, context: context) }
        case .rstStream:
            if case .receiving = streams[frame.streamID] { responder.stats.update { $0.streamsResetByClient += 1 } }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        connection.closed(closedDuringRead)
        closedDuringRead = 0
        if flushPending {
            flushPending = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// Takes the stream events NIO raises for a multiplexer (none of the handlers after this
    /// one reads them, so they stop here) and passes every other event on.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let window as NIOHTTP2WindowUpdatedEvent:
            returnWindow(window, context: context)
        case let closed as StreamClosedEvent:
            if streams.removeValue(forKey: closed.streamID) != nil {
                if reading { closedDuringRead += 1 } else { connection.closed(1) }
            }
        case is NIOHTTP2StreamCreatedEvent:
            break
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // NIO has already reset a stream whose frames broke the protocol; only the stream ends.
        if error is NIOHTTP2Errors.StreamError { return }
        context.fireErrorCaught(error)
    }

    /// Tops the connection's or a stream's receive window back up once the client has used half
    /// of it, so a request of any length can finish arriving (and be refused on its length).
    private func returnWindow(_ window: NIOHTTP2WindowUpdatedEvent, context: ChannelHandlerContext) {
        guard let size = window.inboundWindowSize, size <= Self.windowSize / 2 else { return }
        guard window.streamID == .rootStream || streams[window.streamID] != nil else { return }
        let update = HTTP2Frame(
            streamID: window.streamID,
            payload: .windowUpdate(windowSizeIncrement: Self.windowSize - size)
        )
        context.write(wrapOutboundOut(update), promise: nil)
        if reading { flushPending = true } else { context.flush() }
    }

    private func respond(on stream: HTTP2StreamID, context: ChannelHandlerContext) {
        // Taking the request out as the stream is marked answered leaves it one owner.
        let progress = streams.updateValue(.answered, forKey: stream)
        guard case .receiving(let request, _) = progress else {
            if case .none = progress { streams[stream] = nil }
            return
        }
        let answer = responder.decide(request, on: connection, control: control)
        // A hang: the stream stays open, unanswered, until the client resets it or leaves.
        if answer.withheld { return }
        guard answer.delayNanos > 0 else {
            write(answer, on: stream, context: context)
            flushPending = true
            return
        }
        // Injected latency or a stall: answer later on the connection's event loop, which keeps
        // serving every other stream meanwhile.
        context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(answer.delayNanos))) {
            self.write(answer, on: stream, context: context)
            context.flush()
        }
    }

    private func write(_ answer: PushResponder.Answer, on stream: HTTP2StreamID, context: ChannelHandlerContext) {
        guard context.channel.isActive, streams[stream] != nil else {
            responder.count(answer, written: false, from: connection.client)
            return
        }
        responder.writing(answer, on: connection, control: control)
        var headers = HPACKHeaders()
        headers.reserveCapacity(4)
        answer.forEachHeader { name, value, indexed in
            headers.add(name: name, value: value, indexing: indexed ? .indexable : .nonIndexable)
        }
        let head = HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: answer.body == nil))
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: head)), promise: nil)
        if let body = answer.body {
            let buffer = context.channel.allocator.buffer(bytes: body)
            let data = HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(buffer), endStream: true))
            context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: data)), promise: nil)
        }
        responder.wrote(answer, on: connection, control: control)
    }

    private static func inboundPush(from headers: HPACKHeaders) -> InboundPush {
        var push = InboundPush(method: "", path: "")
        for (name, value, _) in headers { push.addField(name: name, value: value) }
        return push
    }
}
