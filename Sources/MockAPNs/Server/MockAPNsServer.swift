import Dispatch
import EventLoops
import Wire

/// A protocol-accurate APNs endpoint on loopback: HTTP/2 over TLS 1.2+ with ALPN `h2` (or by
/// prior knowledge from a client that offers no ALPN, as APNs serves it), APNs' SETTINGS, and
/// APNs' answers to device pushes (see `PushRequestValidator`).
///
/// `pushbench run` embeds one; `pushbench mock` runs one for curl, h2load or another team's
/// sender. `GET /stats` answers the server's counters as JSON, on the APNs listener itself and on
/// the admin port (plain HTTP/1.1, which also serves `GET /metrics` for Prometheus). Its
/// connections are carried by `NGHTTP2MockEngine` (epoll loops, libnghttp2 and OpenSSL); what a
/// request is judged and counted by is `MockServing`'s.
public final class MockAPNsServer: Sendable {
    /// The bound port.
    public let port: Int
    /// The admin listener's port, when it has one.
    public let adminPort: Int?
    /// The broadcast channel management listener's port, when it has one.
    public let channelPort: Int?
    /// The certificate clients must trust.
    public let certificatePEM: [UInt8]
    /// What arrived at each adopted listener, in the configuration's order.
    public let adopted: [ListenerTally]
    /// The server's counters.
    public let stats: MockStats
    /// Checks provider tokens, and counts how often it did so in full.
    public let verifier: ProviderTokenVerifier
    private let engine: NGHTTP2MockEngine

    /// How the mock's answering threads are named (`mock-loop-0`, ...): a profile reads their CPU
    /// apart from the rest of its process by this prefix.
    public static let threadNamePrefix = NGHTTP2MockEngine.threadNamePrefix

    /// Binds and starts serving. Throws if the identity is unusable or the port is taken.
    public static func start(_ configuration: MockAPNsConfiguration) throws -> MockAPNsServer {
        let startNanos = DispatchTime.now().uptimeNanoseconds
        let serving = MockServing(
            configuration,
            identity: try configuration.identity ?? TLSIdentity.makeSelfSigned(),
            startNanos: startNanos
        )
        let engine = try NGHTTP2MockEngine(serving)
        serving.scheduleMoments(startNanos: startNanos)
        return MockAPNsServer(serving, engine: engine)
    }

    private init(_ serving: MockServing, engine: NGHTTP2MockEngine) {
        port = engine.port
        adminPort = engine.adminPort
        channelPort = engine.channelPort
        certificatePEM = serving.identity.certificatePEM
        adopted = serving.configuration.adoptedListeners.map(\.tally)
        stats = serving.stats
        verifier = serving.verifier
        self.engine = engine
    }

    /// Blocks until the server has stopped, its threads included: a process that exits while
    /// another thread is still shutting the event loops down can crash on the way out.
    public func waitUntilClosed() throws {
        engine.waitUntilClosed()
        shutdown()
    }

    /// Stops listening, closes every connection and its threads. Safe to call more than once
    /// and from several threads: every call returns once the first has finished.
    public func shutdown() {
        engine.shutdown()
    }
}

/// Why the mock could not start, in words a user can act on.
public enum MockAPNsStartError: Error, Equatable, CustomStringConvertible {
    case addressInUse(host: String, port: Int)
    case unusableIdentity(String)
    case unusableRecording(String)
    case unusableListener(String)

    public var description: String {
        switch self {
        case .addressInUse(let host, let port): "port \(port) on \(host) is already in use"
        case .unusableIdentity(let detail):
            "the TLS certificate and key are not a usable PEM certificate chain and matching private key (\(detail))"
        case .unusableRecording(let detail): "cannot record traffic: \(detail)"
        case .unusableListener(let detail): "cannot serve a listening socket handed to the mock: \(detail)"
        }
    }

    /// A listener's failure, in the mock's words.
    init(_ error: ListenerError) {
        switch error {
        case .addressInUse(let host, let port): self = .addressInUse(host: host, port: port)
        case .unusable(let detail): self = .unusableListener(detail)
        }
    }
}
