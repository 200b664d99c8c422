import Workload

/// The connection checks: connections opened per push, streams used per connection, and how
/// refused pushes are sent again.
extension SenderPractices {
    /// A sender that keeps its connections sends far more than this many pushes on each.
    static let pushesPerConnectionFloor = 3.0
    /// A connection at one stream carrying pushes faster than this, per second, is waiting on
    /// round trips rather than on its own schedule.
    static let queuedRatePerSecond = 50.0
    /// A retry sooner than this after a refusal, milliseconds, had no backoff at all.
    static let noBackoffMs: Int64 = 10

    /// A new connection for (nearly) every push: a TCP and TLS handshake each, and APNs may
    /// take rapid connects and disconnects for a denial of service.
    static func connectionPerPush(_ figures: inout Figures, _ records: TrafficTable, accepted: Int?) -> Finding? {
        let seen = Set(records.lazy.map(\.connection)).count
        let connections = max(seen, accepted ?? 0)
        figures.connections = connections
        figures.pushesPerConnection = connections > 0 ? Double(records.count) / Double(connections) : 0
        figures.connectionsPerSecond = Double(connections) / max(figures.recordingSeconds, 1)
        guard connections >= 10, figures.pushesPerConnection < pushesPerConnectionFloor else { return nil }
        return Finding(
            practice: "connection-per-push",
            title: "Opens a new connection for (nearly) every push",
            evidence:
                "\(connections.formatted()) connections for \(records.count.formatted()) pushes "
                + "(\(String(format: "%.1f", figures.pushesPerConnection)) a connection), "
                + "\(String(format: "%.1f", figures.connectionsPerSecond)) new connections a second",
            cost:
                "a TCP and TLS handshake (two round trips and an ECDHE on each side) per push, and a new provider "
                + "token check on each connection; Apple warns that rapid connects and disconnects may be "
                + "treated as a denial-of-service attack and the sender blocked",
            advice: "Keep a few connections open for hours and send every push on them.",
            pushesAffected: connections
        )
    }

    /// Every connection at one stream while it carries pushes back to back: the sender waits a
    /// round trip per push where APNs allows hundreds in flight.
    static func oneStream(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        var most: [Int: Int] = [:]
        var spans: [Int: (first: Int64, last: Int64, pushes: Int)] = [:]
        for record in records {
            guard let open = record.streamsOpen else { continue }
            most[record.connection] = max(most[record.connection] ?? 0, open)
            var span = spans[record.connection] ?? (record.receivedMs, record.receivedMs, 0)
            span.last = record.receivedMs
            span.pushes += 1
            spans[record.connection] = span
        }
        figures.streamsOpenMax = most.values.max()
        guard let widest = most.values.max(), widest <= 1, figures.streamsAdvertised > 1 else { return nil }
        // Connections carrying pushes back to back: their pushes, and their rate per second.
        let busy = spans.values.map { span in
            (pushes: span.pushes, rate: Double(span.pushes) / max(Double(span.last - span.first) / 1000, 0.001))
        }.filter { $0.pushes >= 20 && $0.rate >= queuedRatePerSecond }
        guard let rate = busy.map(\.rate).max() else { return nil }
        let pushes = busy.reduce(0) { $0 + $1.pushes }
        return Finding(
            practice: "one-stream",
            title: "Sends one push at a time on each connection",
            evidence:
                "never more than 1 stream open on any of \(most.count.formatted()) connections, where the mock "
                + "advertised \(figures.streamsAdvertised.formatted()); \(busy.count.formatted()) connections carried "
                + "pushes back to back (up to \(String(format: "%.0f", rate))/s)",
            cost:
                "a connection carries one push per round trip: at 20 ms to APNs, 50 pushes/s a connection, where "
                + "\(figures.streamsAdvertised.formatted()) streams carry \(figures.streamsAdvertised.formatted()) "
                + "times as many",
            advice: "Keep many requests in flight on each connection, up to the server's MAX_CONCURRENT_STREAMS.",
            pushesAffected: pushes
        )
    }

    /// A sender whose rate is what its own concurrency allows: its streams in flight a
    /// connection × its connections ÷ the answer's delay, with far fewer streams than the server
    /// allows. Neither its CPU nor APNs sets its pace, and a longer round trip slows it in
    /// proportion: the first limit a fleet's plan must lift. A batch sender's rate is its rate
    /// while busy (`batchPattern`), which its idle gaps would dilute.
    static func concurrencyCapped(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        let inFlight = records.compactMap(\.streamsOpen).sorted()
        guard !inFlight.isEmpty else { return nil }
        let streams = inFlight[min(inFlight.count - 1, inFlight.count * 9 / 10)]
        figures.streamsInFlightP90 = streams
        let connections = Set(records.lazy.map(\.connection)).count
        guard let delayMs = figures.answerDelayMs, delayMs >= 1, figures.recordingSeconds > 0,
            let widest = figures.streamsOpenMax, widest * 10 <= figures.streamsAdvertised, connections > 0
        else { return nil }
        let rate = figures.busyRatePerSecond ?? figures.averageRate
        let cap = Double(streams * connections) / (delayMs / 1000)
        guard rate >= 0.6 * cap else { return nil }
        return Finding(
            practice: "concurrency-capped",
            title: "Its own concurrency caps its rate: not its CPU, and not APNs",
            evidence:
                String(
                    format: "%.0f pushes/s%@, %.0f%% of the ",
                    rate,
                    figures.bursts == nil ? "" : " while busy",
                    rate * 100 / cap
                )
                + String(format: "%.0f pushes/s that ", cap) + "\(streams) streams in flight a connection (p90) × "
                + "\(connections) connections ÷ " + String(format: "%.1f ms an answer allow", delayMs)
                + "; at most \(widest) of the \(figures.streamsAdvertised.formatted()) streams the mock advertised "
                + "were open on any connection",
            cost:
                "its rate falls as the round trip grows: at 40 ms to APNs these connections carry "
                + String(format: "%.0f pushes/s", Double(streams * connections) / 0.04)
                + ", whatever the CPU; a plan that counts on the server's stream limit overstates it "
                + String(format: "%.0f times", Double(figures.streamsAdvertised) / Double(streams)),
            advice:
                "Keep more requests in flight on each connection (the client's concurrency or stream limit, up to "
                + "MAX_CONCURRENT_STREAMS), or open more connections: the rate grows with either.",
            pushesAffected: records.count
        )
    }

    /// Refused pushes sent again at once, or sooner than `Retry-After` asked: a 429 or 503 burst
    /// becomes a storm.
    static func retryWithoutBackoff(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        var byAPNsID: [String: Int] = [:]
        // The last push to each device token, by the token's number in the table.
        var lastToToken = [Int?](repeating: nil, count: records.tokenCount)
        var gaps: [Int64] = []
        var soonerThanAsked = 0
        var refusedAgain = 0
        var asked = 0
        for (index, record) in records.enumerated() {
            let earlier =
                (record.apnsID.isEmpty ? nil : byAPNsID[record.apnsID])
                ?? lastToToken[records.tokenNumber(at: index)].flatMap { last in
                    records[last].payloadDigest == record.payloadDigest && !record.payloadDigest.isEmpty ? last : nil
                }
            if !record.apnsID.isEmpty { byAPNsID[record.apnsID] = index }
            if !record.deviceToken.isEmpty { lastToToken[records.tokenNumber(at: index)] = index }
            guard let earlier, !records[earlier].accepted else { continue }
            figures.retries += 1
            guard [429, 500, 503].contains(records[earlier].status) else { continue }
            figures.retriesAfterThrottle += 1
            let gap = record.receivedMs - records[earlier].receivedMs
            gaps.append(gap)
            if let retryAfter = records[earlier].retryAfterSeconds {
                asked += 1
                if gap < Int64(retryAfter) * 1000 - 100 { soonerThanAsked += 1 }
            } else if gap < noBackoffMs {
                soonerThanAsked += 1
            }
            if [429, 503].contains(record.status) { refusedAgain += 1 }
        }
        figures.retriesSoonerThanAsked = soonerThanAsked
        figures.retryGapMedianMs = median(gaps).map(Double.init)
        guard soonerThanAsked >= 3, soonerThanAsked * 2 >= figures.retriesAfterThrottle else { return nil }
        return Finding(
            practice: "retry-without-backoff",
            title: "Retries refused pushes without backing off",
            evidence:
                "\(figures.retriesAfterThrottle.formatted()) retries of pushes answered 429, 500 or 503, a median "
                + "\(median(gaps) ?? 0) ms after the refused attempt; \(soonerThanAsked.formatted()) sooner than "
                + (asked > 0 ? "Retry-After asked (\(asked.formatted()) answers carried it)" : "\(noBackoffMs) ms"),
            cost:
                "\(share(refusedAgain, of: figures.retriesAfterThrottle)) of the retries were refused again: every "
                + "push of a burst is sent again into the same overload",
            advice: "Wait Retry-After when given, else an exponential backoff with jitter; cap the attempts.",
            pushesAffected: soonerThanAsked
        )
    }
}
