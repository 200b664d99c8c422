extension MockStats.Snapshot {
    /// The counts that add up across event loops.
    static var sums: [WritableKeyPath<Self, Int>] {
        [
            \.connectionsAccepted, \.connectionsRefusedWithoutH2, \.connectionsWithoutALPN,
            \.connectionsRefusedOverLimit, \.handshakesTimedOut, \.connectionsOpen, \.pushes, \.accepted,
            \.providerTokenUpdates, \.streamsResetByClient, \.answersStalled, \.answersWithheld, \.handshakesDelayed,
            \.goAwaysSent, \.connectionResets, \.answersUnsent, \.pushAnswersUnsent, \.acceptedUnsent, \.broadcasts,
            \.broadcastsAccepted,
            \.broadcastDeliveries, \.broadcastLastDeliveryMicros, \.channelsCreated, \.channelsDeleted,
            \.injectedDelayMicros,
        ]
    }
    /// The counts by label that add up across event loops, label by label.
    static var labelledSums: [WritableKeyPath<Self, [String: Int]>] {
        [
            \.connectionErrors, \.rejectedByReason, \.pushesByPushType, \.pushesByPriority, \.liveActivityWouldDrop,
            \.acceptedIrregular, \.faultsInjected, \.channelRequests, \.broadcastRejectedByReason,
            \.channelRequestsRejectedByReason, \.pushesByClient,
        ]
    }

    /// Adds another event loop's counters: sums, sums by label, answers by connection (each
    /// connection lives on one loop), and the longest broadcast fan-out. `instance` stays.
    mutating func add(_ other: Self) {
        for path in Self.sums { self[keyPath: path] += other[keyPath: path] }
        for path in Self.labelledSums { self[keyPath: path].merge(other[keyPath: path], uniquingKeysWith: +) }
        pushesByConnection.merge(other.pushesByConnection, uniquingKeysWith: +)
        broadcastLastDeliveryMicrosMax = max(broadcastLastDeliveryMicrosMax, other.broadcastLastDeliveryMicrosMax)
    }
}
