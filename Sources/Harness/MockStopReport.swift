import Foundation
import MockAPNs
import Reports
import SenderDoctor
import Workload

/// What a mock says when it stops: its counts in a few lines, and, with a recording, the
/// server's view of the traffic and the sender doctor's findings on it. In the library rather
/// than in the command, so that every command that runs a mock reports its stop the same way and
/// a test can read the report without a process.
public enum MockStopReport {
    /// The stop line and, where they happened, broadcasts, clients served without ALPN, and
    /// pushes accepted although irregular or that a device would drop.
    public static func lines(_ stats: MockStats.Snapshot) -> [String] {
        var lines = [
            "stopped: \(stats.pushes) pushes answered, \(stats.accepted) accepted, \(stats.connectionsAccepted) connections"
        ]
        if stats.broadcasts > 0 {
            let accepted = max(stats.broadcastsAccepted, 1)
            lines.append(
                "broadcasts: \(stats.broadcastsAccepted) of \(stats.broadcasts) accepted, \(stats.broadcastDeliveries) deliveries; "
                    + String(
                        format: "last subscriber after %.1f ms on average, %.1f ms at most (fan-out model)",
                        Double(stats.broadcastLastDeliveryMicros) / Double(accepted) / 1000,
                        Double(stats.broadcastLastDeliveryMicrosMax) / 1000
                    )
            )
        }
        if stats.connectionsWithoutALPN > 0 {
            lines.append(
                "served HTTP/2 by prior knowledge to \(stats.connectionsWithoutALPN) connections that offered no ALPN, as APNs does"
            )
        }
        for (title, counts) in [
            ("accepted although irregular (docs/mock-conformance.md)", stats.acceptedIrregular),
            ("accepted, but a device would drop them", stats.liveActivityWouldDrop),
        ] where !counts.isEmpty {
            lines.append(
                "\(title): " + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            )
        }
        return lines
    }

    /// The traffic report of `recording` (the mock's `--record` file, complete), with the
    /// sender doctor's findings, built and written into `folder`.
    ///
    /// - Parameters:
    ///   - streamsAdvertised: the stream limit the mock offered once a token was valid, which the
    ///     doctor compares a sender's use of streams with.
    ///   - budget: where the doctor's figure of updates the devices' budget drops comes from: a
    ///     replay of the recording, the caller's model (a profile's, on the scenario's clock, for
    ///     the doctor to say the same), or none.
    /// - Returns: the report page's path, and the doctor's findings and the figures it read.
    public static func writeTraffic(
        of recording: String,
        stats: MockStats.Snapshot,
        streamsAdvertised: Int,
        to folder: String,
        deviceDrops: [String: Int] = [:],
        budget: SenderPractices.BudgetSource = .replay
    ) throws -> (page: String, practices: SenderPractices) {
        let irregular = [
            ("accepted_irregular", stats.acceptedIrregular),
            ("live_activity_would_drop", stats.liveActivityWouldDrop),
        ].flatMap { counter, counts in
            counts.sorted { $0.key < $1.key }.map {
                TrafficReport.Irregular(counter: counter, kind: $0.key, pushes: $0.value)
            }
        }
        let records = try TrafficFile.table(recording)
        var traffic = TrafficReport(records: records, source: recording, irregular: irregular)
        let practices = SenderPractices(
            records: records,
            streamsAdvertised: streamsAdvertised,
            connectionsAccepted: stats.connectionsAccepted,
            answerDelayMs: stats.injectedDelayMicros > 0 && stats.pushes > 0
                ? Double(stats.injectedDelayMicros) / Double(stats.pushes) / 1000 : nil,
            deviceDrops: deviceDrops,
            budget: budget
        )
        traffic.practices = practices
        if stats.broadcasts > 0 {
            traffic.broadcasts = TrafficReport.Broadcasts(
                answered: stats.broadcasts,
                accepted: stats.broadcastsAccepted,
                deliveries: stats.broadcastDeliveries,
                lastDeliveryMicrosTotal: stats.broadcastLastDeliveryMicros,
                lastDeliveryMicrosMax: stats.broadcastLastDeliveryMicrosMax
            )
        }
        return (try traffic.write(to: folder), practices)
    }
}
