import NIOCore
import NIOHPACK
import NIOHTTP2
import Wire

/// Reads one HTTP/2 stream's request and writes APNs' answer to it.
///
/// A success is a single HEADERS frame with END_STREAM; an error is HEADERS then a DATA frame
/// with the JSON reason, as Apple's response samples show. Errors on one stream close that
/// stream only, never the connection.
final class PushStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let responder: PushResponder
    /// The connection's state; the stream runs on the connection's event loop, so it is only
    /// ever touched from there.
    private let connection: ConnectionState
    private var request: InboundPush?
    private var answered = false
    private var keepsBody = false
    /// Whether the connection counts this stream as open.
    private var countedOpen = false

    init(responder: PushResponder, connection: ConnectionState) {
        self.responder = responder
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if request == nil {
                if let stream = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) {
                    connection.opened(stream)
                    countedOpen = true
                }
                var push = Self.inboundPush(from: frame.headers)
                push.connection = connection.port
                push.streamsOpen = connection.openStreams
                // Live Activity content is checked as a device would; recordings keep every body.
                // Channel requests carry their settings in the body. A broadcast (it names a
                // channel) keeps its body whatever the spelling of its push type: Apple's own
                // page writes `LiveActivity`.
                keepsBody =
                    responder.recorder != nil || push.knownPushType == .liveactivity || push.channelID != nil
                    || connection.listener == .channels
                request = push
            }
            if frame.endStream { respond(context: context) }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data {
                request?.bodyLength += buffer.readableBytes
                if keepsBody, let kept = request?.body.count, kept < ConnectionLimits.keptBodyBytes {
                    request?.body += buffer.readableBytesView.prefix(ConnectionLimits.keptBodyBytes - kept)
                }
            }
            if frame.endStream { respond(context: context) }
        case .rstStream:
            if !answered { responder.stats.update { $0.streamsResetByClient += 1 } }
        default:
            break
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if countedOpen { connection.closed() }
        countedOpen = false
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    private func respond(context: ChannelHandlerContext) {
        guard !answered, let request else { return }
        answered = true
        let answer = responder.answer(request, on: connection)
        if answer.tokenVerified { connection.tokenVerified(on: context.channel.parent) }
        // A hang: the stream stays open, unanswered, until the client resets it or leaves.
        if answer.withheld { return }
        guard answer.delayNanos > 0 else {
            write(answer, context: context)
            return
        }
        // Injected latency or a stall: answer later on this stream's own event loop, which
        // keeps serving every other stream meanwhile.
        context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(answer.delayNanos))) {
            self.write(answer, context: context)
        }
    }

    private func write(_ answer: PushResponder.Answer, context: ChannelHandlerContext) {
        guard context.channel.isActive else {
            responder.count(answer, written: false)
            return
        }
        responder.count(answer, written: true)
        // A changed stream limit goes out before the answer, so a client that stops reading
        // after its last answer has still seen it.
        connection.answered(accepted: answer.status == 200, on: context.channel.parent)
        var headers = HPACKHeaders()
        headers.reserveCapacity(4)
        headers.add(name: ":status", value: answer.status == 200 ? "200" : String(answer.status))
        // An apns-id is new with every answer: adding it to HPACK's table would only evict
        // entries that repeat, at a lookup and an insertion per answer.
        if let apnsID = answer.apnsID { headers.add(name: "apns-id", value: apnsID, indexing: .nonIndexable) }
        if let requestID = answer.requestID {
            headers.add(name: "apns-request-id", value: requestID, indexing: .nonIndexable)
        }
        if let channelID = answer.channelID {
            headers.add(name: "apns-channel-id", value: channelID, indexing: .nonIndexable)
        }
        if let uniqueID = answer.uniqueID {
            headers.add(name: "apns-unique-id", value: uniqueID, indexing: .nonIndexable)
        }
        if let retryAfter = answer.retryAfterSeconds { headers.add(name: "retry-after", value: String(retryAfter)) }
        if answer.body != nil { headers.add(name: "content-type", value: "application/json") }
        context.write(wrapOutboundOut(.headers(.init(headers: headers, endStream: answer.body == nil))), promise: nil)
        if let body = answer.body {
            let buffer = context.channel.allocator.buffer(bytes: body)
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(buffer), endStream: true))), promise: nil)
        }
        context.flush()
        switch connection.afterAnswer(on: context.channel.parent) {
        case .goAway: responder.stats.update { $0.goAwaysSent += 1 }
        case .reset: responder.stats.update { $0.connectionResets += 1 }
        case nil: break
        }
    }

    private static func inboundPush(from headers: HPACKHeaders) -> InboundPush {
        var push = InboundPush(method: "", path: "")
        for (name, value, _) in headers {
            if name.utf8.first != UInt8(ascii: ":") {
                push.add(name: name, value: value)
            } else if name == ":method" {
                push.method = value
            } else if name == ":path" {
                push.path = value
            }
        }
        return push
    }
}
