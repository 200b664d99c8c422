import Synchronization

/// Admits connections while fewer than a limit are open (`ConnectionLimits.maxConnections`).
final class ConnectionGate: Sendable {
    private let limit: Int
    private let open = Atomic<Int>(0)

    /// Creates a gate that admits up to `limit` connections at once.
    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a place for a new connection; `false` when all are taken. An admitted connection
    /// must `leave` when it closes.
    func admit() -> Bool {
        if open.wrappingAdd(1, ordering: .relaxed).newValue <= limit { return true }
        open.wrappingSubtract(1, ordering: .relaxed)
        return false
    }

    /// Gives back the place of a connection that closed.
    func leave() {
        open.wrappingSubtract(1, ordering: .relaxed)
    }
}
