import NIOCore
import Synchronization

/// The HTTP/2 connections open now, so an incident on the timeline (a GOAWAY or a reset of every
/// connection at second T) reaches each of them. Kept only when the fault plan has such an
/// incident.
final class OpenConnections: Sendable {
    private let connections = Mutex<[ObjectIdentifier: (Channel, NIOLoopBoundBox<ConnectionState>)]>([:])

    /// Tracks `channel` until it closes.
    func add(_ channel: Channel, state: NIOLoopBoundBox<ConnectionState>) {
        let key = ObjectIdentifier(channel)
        connections.withLock { $0[key] = (channel, state) }
        channel.closeFuture.whenComplete { [self] _ in
            _ = connections.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// Sends every open connection GOAWAY, or resets it, on its own event loop, and counts the
    /// connections struck.
    func strike(_ kind: Incident.Kind, stats: MockStats) {
        for (channel, state) in connections.withLock({ Array($0.values) }) {
            channel.eventLoop.execute {
                switch kind {
                case .goAway where state.value.goAway(channel): stats.update { $0.goAwaysSent += 1 }
                case .reset where state.value.reset(channel): stats.update { $0.connectionResets += 1 }
                default: break
                }
            }
        }
    }
}
