import MockFaults
import Synchronization

/// The HTTP/2 connections open now, so an incident on the timeline (a GOAWAY or a reset of every
/// connection at second T) reaches each of them. Kept only when the fault plan has such an
/// incident.
final class OpenConnections: Sendable {
    /// Each connection's way to be struck: it hands the incident to the connection's own thread.
    private let connections = Mutex<[ObjectIdentifier: @Sendable (Incident.Kind) -> Void]>([:])

    /// Tracks the connection `key` until `remove`; `strike` runs an incident on its thread
    /// (`OpenConnections.apply` there).
    func add(_ key: ObjectIdentifier, strike: @escaping @Sendable (Incident.Kind) -> Void) {
        connections.withLock { $0[key] = strike }
    }

    /// Stops tracking the connection `key`, which has closed.
    func remove(_ key: ObjectIdentifier) {
        _ = connections.withLock { $0.removeValue(forKey: key) }
    }

    /// Sends every open connection GOAWAY, or resets it, on its own thread.
    func strike(_ kind: Incident.Kind) {
        for strike in connections.withLock({ Array($0.values) }) { strike(kind) }
    }

    /// What a strike does on the connection's thread: GOAWAY or a reset, counted once.
    static func apply(
        _ kind: Incident.Kind,
        to state: ConnectionState,
        control: any ConnectionControl,
        stats: MockStats
    ) {
        switch kind {
        case .goAway where state.goAway(control): stats.update { $0.goAwaysSent += 1 }
        case .reset where state.reset(control): stats.update { $0.connectionResets += 1 }
        default: break
        }
    }
}
