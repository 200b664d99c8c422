import Wire

/// One event loop's counts of the device pushes it answered, kept apart from its other counters
/// in arrays indexed by label, as h2load keeps its counts: counting a push moves integers and
/// never makes or hashes a String. `add(to:clients:)` names them when a snapshot is taken.
struct PushCounts {
    /// Pushes answered, and answered 200.
    var pushes = 0
    var accepted = 0
    /// Pushes answered, by `PushTypeLabel.index`, `PriorityLabel` and `APNsReason.index`.
    var byPushType = [Int](repeating: 0, count: PushTypeLabel.names.count)
    var byPriority = [Int](repeating: 0, count: PriorityLabel.allCases.count)
    var byReason = [Int](repeating: 0, count: APNsReason.allCases.count)
    /// Pushes answered, by the sending host's `ClientAddresses` slot; grown to the highest slot
    /// seen.
    var byClient: [Int] = []
    /// Pushes answered, by connection (the client's port); past `connectionLimit` connections,
    /// under port 0.
    var byConnection: [Int: Int] = [:]

    /// Counts one push answered as `answer` says, from the host in `client`.
    mutating func count(_ answer: PushResponder.Answer, from client: ClientAddresses.Slot) {
        pushes += 1
        byPushType[answer.pushType.index] += 1
        byPriority[answer.priority.rawValue] += 1
        if let reason = answer.reason {
            byReason[reason.index] += 1
        } else {
            accepted += 1
        }
        if client.index >= byClient.count { byClient += repeatElement(0, count: client.index + 1 - byClient.count) }
        byClient[client.index] += 1
        let named =
            byConnection.count < MockStats.Snapshot.connectionLimit || byConnection[answer.connection] != nil
        byConnection[named ? answer.connection : 0, default: 0] += 1
    }

    /// Adds these counts to `snapshot` under their names: every label counted at least once,
    /// hosts by their address in `clients` (indexed by slot), or as
    /// `otherClients` past them.
    func add(to snapshot: inout MockStats.Snapshot, clients: [String]) {
        snapshot.pushes += pushes
        snapshot.accepted += accepted
        Self.add(byPushType, named: { PushTypeLabel.names[$0] }, to: &snapshot.pushesByPushType)
        Self.add(byPriority, named: { PriorityLabel(rawValue: $0)!.name }, to: &snapshot.pushesByPriority)
        Self.add(byReason, named: { APNsReason(index: $0).rawValue }, to: &snapshot.rejectedByReason)
        Self.add(
            byClient,
            named: { clients.indices.contains($0) ? clients[$0] : MockStats.Snapshot.otherClients },
            to: &snapshot.pushesByClient
        )
        snapshot.pushesByConnection.merge(byConnection, uniquingKeysWith: +)
    }

    private static func add(_ counts: [Int], named name: (Int) -> String, to labelled: inout [String: Int]) {
        for (index, count) in counts.enumerated() where count > 0 { labelled[name(index), default: 0] += count }
    }
}
