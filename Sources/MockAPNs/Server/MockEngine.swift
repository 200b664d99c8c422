#if canImport(Glibc)
import Glibc
#endif

/// A server core the mock runs on: it binds the listeners, moves bytes, TLS and HTTP/2 frames,
/// and hands every request to the protocol logic that `MockServing` holds, which is the same for
/// every engine.
protocol MockEngine: Sendable {
    /// The bound ports: APNs' push listener, and the channel management and admin listeners
    /// when the configuration asks for them.
    var port: Int { get }
    var channelPort: Int? { get }
    var adminPort: Int? { get }
    /// Blocks until the push listener has closed.
    func waitUntilClosed()
    /// Stops listening and closes every connection and thread; returns once they are.
    func shutdown()
}

extension MockAPNsConfiguration {
    /// Which server core carries the mock's connections.
    public enum Engine: String, Sendable, CaseIterable {
        /// SwiftNIO with NIOHTTP2 and NIOSSL (BoringSSL).
        case nio
        /// An epoll loop per thread with libnghttp2's server session and the system's OpenSSL.
        case nghttp2

        /// The engine a configuration starts with: `PUSHBENCH_MOCK_ENGINE` (`nio` or `nghttp2`)
        /// when it names one, so a CI job or a test suite can run every mock on either engine;
        /// the nghttp2 engine otherwise, which spent 0.7-0.85 times nginx's CPU a request where
        /// SwiftNIO's spent 1.45-1.6 times it (`Benchmarks/mock-vs-nginx.sh`).
        public static var standard: Engine {
            guard let name = getenv("PUSHBENCH_MOCK_ENGINE") else { return .nghttp2 }
            return Engine(rawValue: String(cString: name)) ?? .nghttp2
        }
    }
}
