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
        // A peer that closes TCP without TLS close_notify has done nothing wrong: HTTP/2 frames
        // say where each message ends, so nothing can have been cut off unseen. Most clients
        // (curl, h2load, PushBench's own) close so, and counting it buried the real errors.
        if case .uncleanShutdown = error as? NIOSSLError {
            context.close(promise: nil)
            return
        }
        let kind = Self.kind(of: error)
        stats.update { $0.connectionErrors[kind, default: 0] += 1 }
        if !kind.hasPrefix("http2.") { context.close(promise: nil) }
    }

    /// A short, bounded label: the error's layer (`tls`, `http2`, `io` or `other`) and type, and
    /// for a TLS error its case (`tls.NIOSSLError.handshakeFailed`), which says what happened.
    static func kind(of error: Error) -> String {
        let name = String(describing: type(of: error))
        switch error {
        case let error as NIOSSLError:
            let description = String(describing: error)
            return "tls.\(name).\(description.prefix { $0.isLetter || $0.isNumber })"
        case is BoringSSLError: return "tls.\(name)"
        case is IOError: return "io"
        default:
            return String(reflecting: type(of: error)).hasPrefix("NIOHTTP2.") ? "http2.\(name)" : "other.\(name)"
        }
    }
}
