import Synchronization

/// A listening socket made outside the mock, such as inside a sealed network at one of Apple's
/// names, that the mock serves as that name would answer: its environment, its API, and counts of
/// what arrived there, so a report can say which name each push came to.
public struct AdoptedListener: Sendable {
    /// Which API the listener serves.
    public enum API: Sendable {
        /// Device pushes and broadcasts.
        case push
        /// Broadcast channel management.
        case channels
    }

    /// The listening socket; the mock closes it when it stops.
    public let descriptor: Int32
    /// What arrived at it.
    public let tally: ListenerTally
    public let api: API

    public init(descriptor: Int32, name: String, port: Int, environment: MockAPNsConfiguration.Environment, api: API) {
        self.descriptor = descriptor
        self.api = api
        tally = ListenerTally(name: name, port: port, environment: environment)
    }
}

/// What arrived at one adopted listener: connections, how many finished their TLS handshake and
/// ALPN, requests and accepted pushes. Read at any time from any thread.
public final class ListenerTally: Sendable {
    /// The name and port it answers as, and the environment it plays.
    public let name: String
    public let port: Int
    public let environment: MockAPNsConfiguration.Environment
    private let counts = Mutex(Counts())

    /// The counts at one moment.
    public struct Counts: Sendable, Equatable {
        /// Connections accepted, and those that finished TLS and chose HTTP/2.
        public var connections = 0
        public var handshaken = 0
        /// Requests answered (written or not), and of those, accepted with 200.
        public var requests = 0
        public var accepted = 0

        /// Connections that never finished their handshake: a client that did not trust the
        /// mock's certificate (it pinned Apple's, or trusts another CA), or one still shaking hands.
        public var handshakesUnfinished: Int { connections - handshaken }
    }

    init(name: String, port: Int, environment: MockAPNsConfiguration.Environment) {
        self.name = name
        self.port = port
        self.environment = environment
    }

    /// The counts now.
    public var snapshot: Counts { counts.withLock { $0 } }

    func update(_ change: (inout Counts) -> Void) { counts.withLock { change(&$0) } }
}
