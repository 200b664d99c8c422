import NIOCore

/// Serves HTTP/2 to a TLS client that negotiated no protocol with ALPN, if it opens with the
/// HTTP/2 connection preface, as APNs does.
///
/// APNs speaks HTTP/2 by prior knowledge after a TLS handshake without ALPN: Pushy connected
/// that way for years (its issue 808: "apple seems to support just doing HTTP/2 without any
/// negotiation"), and aioapns 4.0 still does (`docs/mock-conformance.md`). A client that sends
/// anything else first (an HTTP/1.1 request line) is closed, as one that asked for another
/// protocol is. The first 24 bytes are held until they can be judged, then handed on unchanged.
final class HTTP2PrefaceCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The bytes every HTTP/2 client sends first (RFC 9113 §3.4).
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private let serveHTTP2: (Channel) -> EventLoopFuture<Void>
    private let refuse: (Channel) -> Void
    private var held: ByteBuffer?
    private var judged = false

    /// - Parameters:
    ///   - serveHTTP2: adds the HTTP/2 handlers after this one, as for a client that negotiated
    ///     `h2`.
    ///   - refuse: counts and closes a connection that does not speak HTTP/2.
    init(serveHTTP2: @escaping (Channel) -> EventLoopFuture<Void>, refuse: @escaping (Channel) -> Void) {
        self.serveHTTP2 = serveHTTP2
        self.refuse = refuse
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        guard !judged else {
            held.setOrWriteBuffer(&bytes)
            return
        }
        held.setOrWriteBuffer(&bytes)
        guard let buffer = held else { return }
        let seen = buffer.readableBytesView.prefix(Self.preface.count)
        guard seen.elementsEqual(Self.preface.prefix(seen.count)) else {
            judged = true
            refuse(context.channel)
            return
        }
        guard seen.count == Self.preface.count else { return }
        judged = true
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        serveHTTP2(context.channel).whenComplete { result in
            let (handler, context) = bound.value
            guard case .success = result, let buffer = handler.held else {
                context.close(promise: nil)
                return
            }
            handler.held = nil
            context.fireChannelRead(handler.wrapInboundOut(buffer))
            context.fireChannelReadComplete()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
