import NIOCore
import NIOHTTP2
import NIOSSL

/// The last handler of a connection: counts the errors that reach it (a failed TLS handshake, an
/// HTTP/2 protocol violation, a peer that vanished) by kind, so what the mock refused is visible
/// in `/stats` (`connection_errors`).
///
/// HTTP/2 errors are left to NIO, which has answered them as the protocol says (RST_STREAM for a
/// stream's, GOAWAY for the connection's); any other error leaves the connection unusable, so it
/// is closed at once and its memory freed.
final class ConnectionErrorCounter: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Any

    private let stats: MockStats

    init(stats: MockStats) {
        self.stats = stats
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        let kind = Self.kind(of: error)
        stats.update { $0.connectionErrors[kind, default: 0] += 1 }
        if !kind.hasPrefix("http2.") { context.close(promise: nil) }
    }

    /// A short, bounded label: the error's layer (`tls`, `http2`, `io` or `other`) and type.
    static func kind(of error: Error) -> String {
        let name = String(describing: type(of: error))
        switch error {
        case is NIOSSLError, is BoringSSLError: return "tls.\(name)"
        case is IOError: return "io"
        default:
            return String(reflecting: type(of: error)).hasPrefix("NIOHTTP2.") ? "http2.\(name)" : "other.\(name)"
        }
    }
}
