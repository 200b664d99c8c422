import Basics
import CNGHTTP2
import Wire

extension NGHTTP2PushClient {
    /// A client whose connections go to `InMemoryAPNsPeer`s in this process, each joined to it
    /// by a BIO pair: every push runs the client's real nghttp2 and libssl code, with no socket
    /// or kernel in the way, so its cost can be counted exactly. Call `serveMemoryPeers` between
    /// `perform`s to let the peers answer. Each peer treats its connection as `behaviour` says;
    /// `pingInterval` is how long a connection with requests open may hear nothing before it
    /// sends a PING, and then waits for its answer.
    public static func inMemory(
        connections: Int = 1,
        streamsPerConnection: Int = 100,
        behaviour: InMemoryAPNsPeer.Behaviour = InMemoryAPNsPeer.Behaviour(),
        pingInterval: Duration = .seconds(Int32.max)
    ) throws -> NGHTTP2PushClient {
        let identity = try TLSIdentity.makeSelfSigned()
        var configuration = TransportConfiguration(
            origin: "https://localhost",
            connections: connections,
            streamsPerConnection: streamsPerConnection,
            trustedCertificatesPEM: identity.certificatePEM
        )
        configuration.requestTimeout = .seconds(Int32.max)
        configuration.pingInterval = pingInterval
        return try NGHTTP2PushClient(configuration: configuration, memoryIdentity: identity, memoryBehaviour: behaviour)
    }

    /// Lets every in-memory peer read what its client wrote and answer it.
    public func serveMemoryPeers() {
        for peer in memoryPeers { peer.serve() }
    }

    /// Opens a connection to a new in-memory peer presenting `identity`.
    func openInMemory(presenting identity: TLSIdentity) throws(ConnectionFailure) -> HTTP2Connection {
        var clientEnd: OpaquePointer?
        var peerEnd: OpaquePointer?
        guard BIO_new_bio_pair(&clientEnd, 256 * 1024, &peerEnd, 256 * 1024) == 1, let clientEnd, let peerEnd else {
            throw ConnectionFailure(.clientError, "cannot make a BIO pair: \(TLSClientContext.lastError())")
        }
        do {
            memoryPeers.append(try InMemoryAPNsPeer(identity: identity, bio: peerEnd, behaviour: memoryBehaviour))
        } catch {
            BIO_free(clientEnd)
            throw ConnectionFailure(.clientError, "\(error)")
        }
        return HTTP2Connection(
            memory: clientEnd,
            host: "localhost",
            authority: authority.field(named: .authority),
            tls: tls,
            now: monotonicNanos()
        )
    }
}
