import Synchronization

/// The sending hosts' addresses `/stats` names one by one, each given a slot once, when its
/// connection starts, so that counting a push by host indexes an array rather than hashing the
/// address. The first `MockStats.Snapshot.clientLimit` addresses get slots of their own; later
/// ones share the last, `MockStats.Snapshot.otherClients`, so host churn cannot grow the table.
final class ClientAddresses: Sendable {
    /// A host's place in the table.
    struct Slot: Sendable, Equatable {
        let index: Int

        /// The slot the addresses past the limit share, named `otherClients`.
        static let other = Slot(index: MockStats.Snapshot.clientLimit)
    }

    private struct Table {
        var slots: [String: Int] = [:]
        var names: [String] = []
    }

    private let table = Mutex(Table())

    /// The slot of `address`: its own, given now if it has none and there is room, or the
    /// shared one past the limit.
    func slot(of address: String) -> Slot {
        table.withLock { table in
            if let index = table.slots[address] { return Slot(index: index) }
            guard table.names.count < MockStats.Snapshot.clientLimit else { return .other }
            table.slots[address] = table.names.count
            table.names.append(address)
            return Slot(index: table.names.count - 1)
        }
    }

    /// The addresses slotted so far, by index.
    var names: [String] {
        table.withLock { $0.names }
    }
}
