extension RunSummary {
    /// The sealed network a sender ran in (`profile --as-apple`; absent otherwise): what arrived
    /// at each of Apple's names, where the mock answered, and the connections carried out to
    /// each address it was allowed to reach. Nothing else inside could reach anything.
    public struct SealedNetwork: Codable, Sendable, Equatable {
        /// One of Apple's names on one port.
        public struct Host: Codable, Sendable, Equatable {
            public var name: String
            public var port: Int
            /// `production` or `development`, as Apple's name plays.
            public var environment: String
            /// Connections accepted, and those that never finished TLS and ALPN: a sender that
            /// pins Apple's certificate, or trusts another CA, fails there.
            public var connections: Int
            public var handshakesUnfinished: Int
            /// Requests answered, and pushes accepted (200).
            public var requests: Int
            public var accepted: Int

            public init(
                name: String,
                port: Int,
                environment: String,
                connections: Int,
                handshakesUnfinished: Int,
                requests: Int,
                accepted: Int
            ) {
                self.name = name
                self.port = port
                self.environment = environment
                self.connections = connections
                self.handshakesUnfinished = handshakesUnfinished
                self.requests = requests
                self.accepted = accepted
            }

            enum CodingKeys: String, CodingKey {
                case name, port, environment, connections, requests, accepted
                case handshakesUnfinished = "handshakes_unfinished"
            }
        }

        /// An address outside the sender could reach (`--reach`).
        public struct Reach: Codable, Sendable, Equatable {
            /// `HOST:PORT` as given.
            public var address: String
            /// Connections carried out to it, and those it refused.
            public var connections: Int
            public var refused: Int

            public init(address: String, connections: Int, refused: Int) {
                self.address = address
                self.connections = connections
                self.refused = refused
            }
        }

        public var hosts: [Host]
        public var reach: [Reach]
        /// The service's API ports, carried in from the host's loopback (`--api`), as `Reach`
        /// entries: the connections PushBench's calls and the devices' reports made.
        public var carriedIn: [Reach]

        public init(hosts: [Host], reach: [Reach], carriedIn: [Reach] = []) {
            self.hosts = hosts
            self.reach = reach
            self.carriedIn = carriedIn
        }

        enum CodingKeys: String, CodingKey {
            case hosts, reach
            case carriedIn = "carried_in"
        }

        /// Connections to Apple's names that never finished their handshake, by `name:port`.
        public var unfinishedHandshakes: [(host: String, count: Int)] {
            hosts.filter { $0.handshakesUnfinished > 0 }.map { ("\($0.name):\($0.port)", $0.handshakesUnfinished) }
        }
    }
}
