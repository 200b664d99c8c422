import Synchronization

/// Admits connections while fewer than a limit are open (`ConnectionLimits.maxConnections`).
final class ConnectionGate: Sendable {
    private let limit: Int
    private let open = Atomic<Int>(0)

    /// Creates a gate that admits up to `limit` connections at once.
    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a place for a connection just accepted, which gives it back with `release` when it
    /// closes; `false`, counted as a refusal, when all places are taken.
    func admit(stats: MockStats) -> Bool {
        guard open.wrappingAdd(1, ordering: .relaxed).newValue <= limit else {
            open.wrappingSubtract(1, ordering: .relaxed)
            stats.update { $0.connectionsRefusedOverLimit += 1 }
            return false
        }
        return true
    }

    /// Gives back the place of a connection `admit` admitted, which has closed.
    func release() {
        open.wrappingSubtract(1, ordering: .relaxed)
    }
}
