import Wire

/// A fault on the mock's timeline: it starts a number of seconds after the mock does, and lasts
/// a while, for good, or (for the connection-wide kinds) happens once. A list of them replays an
/// outage the same way every run (`pushbench mock --faults storm.json`).
public struct Incident: Sendable, Equatable {
    /// What goes wrong.
    public enum Kind: Sendable, Equatable {
        /// A burst of errors: this share of otherwise valid pushes arriving during the incident
        /// gets the reason (429, 500 or 503) instead of 200.
        case errors(APNsReason, share: Double)
        /// Nothing is answered during the incident; the answers due then go out when it ends.
        case stall
        /// Pushes arriving during the incident are never answered: their streams stay open until
        /// the client gives up (Pushy #816's lost answers).
        case hang
        /// Every open connection is sent GOAWAY `{"reason":"Shutdown"}` and closed a second later.
        case goAway
        /// Every open connection is reset (TCP RST).
        case reset
        /// New connections wait this many seconds before their TLS handshake is answered.
        case slowTLSAccept(delaySeconds: Double)

        /// The name the faults file and the counters use.
        public var name: String {
            switch self {
            case .errors: "errors"
            case .stall: "stall"
            case .hang: "hang"
            case .goAway: "goaway"
            case .reset: "reset"
            case .slowTLSAccept: "slow_tls_accept"
            }
        }

        /// Whether it happens at one moment to the connections open then, rather than over a
        /// span to the pushes or connections arriving.
        public var isMoment: Bool { self == .goAway || self == .reset }
    }

    /// What goes wrong.
    public var kind: Kind
    /// When it starts, seconds after the mock started.
    public var atSeconds: Double
    /// How long it lasts, seconds; `nil` for good (ignored for the momentary kinds).
    public var forSeconds: Double?

    /// Creates an incident.
    public init(_ kind: Kind, atSeconds: Double, forSeconds: Double? = nil) {
        self.kind = kind
        self.atSeconds = atSeconds
        self.forSeconds = forSeconds
    }

    /// Whether a push or connection arriving `seconds` after the mock started falls in it.
    package func covers(_ seconds: Double) -> Bool {
        seconds >= atSeconds && forSeconds.map { seconds < atSeconds + $0 } ?? true
    }
}
