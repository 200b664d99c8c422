import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers plain HTTP/1.1 `GET`s from a table of paths, each answer read fresh at each request:
/// the mock's admin port (`/stats`, `/metrics`) and a run's metrics port (`/metrics`).
///
/// Plain HTTP, apart from any APNs listener, so that a monitoring system scrapes it without TLS,
/// HTTP/2 or a provider token, and without its requests counting as traffic.
public final class PlainHTTPResponder: ChannelInboundHandler {
    public typealias InboundIn = HTTPServerRequestPart
    public typealias OutboundOut = HTTPServerResponsePart

    /// What one path answers: a content type and a body, made when the request arrives.
    public typealias Route = PlainHTTPExchange.Route

    private let routes: [String: Route]
    private var request: HTTPRequestHead?

    /// Creates a responder for one connection.
    public init(routes: [String: Route]) {
        self.routes = routes
    }

    /// A listener on `group` that gives each connection a responder for `routes`, with
    /// keep-alive (Prometheus keeps its scrape connection open).
    public static func bootstrap(group: any EventLoopGroup, routes: [String: Route]) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(PlainHTTPResponder(routes: routes))
                }
            }
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
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
        if request.method != .HEAD {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))),
                promise: nil
            )
        }
        let (keepAlive, channel) = (request.isKeepAlive, context.channel)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }

    private func answer(to request: HTTPRequestHead) -> (HTTPResponseStatus, String, [UInt8]) {
        let (status, _, contentType, body) = PlainHTTPExchange.answer(
            to: request.method.rawValue,
            uri: request.uri,
            routes: routes
        )
        return (HTTPResponseStatus(statusCode: status), contentType, body)
    }
}
