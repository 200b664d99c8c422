import NIOCore
import NIOHTTP1

/// Answers the admin port's plain HTTP/1.1 requests: `GET /stats` (JSON) and `GET /metrics`
/// (Prometheus text), read fresh from the counters at each request.
///
/// The admin port is apart from the APNs listener so a monitoring system can scrape it without
/// TLS, HTTP/2 or a provider token, and without its requests counting as traffic.
final class AdminRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let stats: MockStats
    private let verifier: ProviderTokenVerifier
    private var request: HTTPRequestHead?

    init(stats: MockStats, verifier: ProviderTokenVerifier) {
        self.stats = stats
        self.verifier = verifier
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            guard let request else { return }
            self.request = nil
            respond(to: request, context: context)
        }
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let (status, contentType, body) = answer(to: request)
        var headers = HTTPHeaders([("content-type", contentType), ("content-length", String(body.count))])
        if !request.isKeepAlive { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(version: request.version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let (keepAlive, channel) = (request.isKeepAlive, context.channel)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }

    private func answer(to request: HTTPRequestHead) -> (HTTPResponseStatus, String, [UInt8]) {
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        guard path == "/stats" || path == "/metrics" else {
            return (.notFound, "text/plain; charset=utf-8", Array("not found: try /stats or /metrics\n".utf8))
        }
        guard request.method == .GET else {
            return (.methodNotAllowed, "text/plain; charset=utf-8", Array("only GET\n".utf8))
        }
        let snapshot = stats.snapshot()
        if path == "/stats" {
            return (.ok, "application/json", snapshot.json(providerTokenFullChecks: verifier.fullChecks))
        }
        return (
            .ok,
            "text/plain; version=0.0.4; charset=utf-8",
            Array(snapshot.prometheusText(providerTokenFullChecks: verifier.fullChecks).utf8)
        )
    }
}
