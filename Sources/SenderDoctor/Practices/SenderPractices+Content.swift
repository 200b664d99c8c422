import Budget
import Workload

/// The content checks: priorities against the device budget, expiry and staleness, payload
/// size, and token hygiene.
extension SenderPractices {
    /// Updates at priority 10 beyond this share are "everything at 10".
    static let priority10Ceiling = 0.9
    /// The updates it takes to judge the share: a sender's first ones (a match's kick-off)
    /// may all be urgent.
    static let priority10Sample = 200

    /// Every Live Activity update at priority 10: iOS spends its hourly budget on them and
    /// drops the rest silently while APNs answers 200. The budget model replays the accepted
    /// pushes to count what devices would drop.
    static func allPriority10(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        // Live Activity pushes by event (an update when it names none), and those at priority 10.
        var pushes: [LifecyclePhase: (all: Int, urgent: Int)] = [:]
        for record in records where record.pushType == "liveactivity" {
            let counts = pushes[record.event ?? .update, default: (0, 0)]
            pushes[record.event ?? .update] = (counts.all + 1, counts.urgent + (record.priority == 10 ? 1 : 0))
        }
        let updates = pushes[.update]?.all ?? 0
        figures.liveActivityUpdates = updates
        guard updates >= priority10Sample else { return nil }
        let urgent = pushes[.update]?.urgent ?? 0
        figures.priority10ShareOfUpdates = Double(urgent) / Double(updates)
        if figures.budgetModel == nil {
            let result = try? TrafficReplay(records: records, path: "").run(parameters: BudgetParameters())
            figures.budgetThrottledUpdates = result?.tally.count(.throttled) ?? 0
            figures.budgetModel = "default parameters, the recording's clock"
        }
        let throttled = figures.budgetThrottledUpdates
        guard Double(urgent) >= priority10Ceiling * Double(updates) else { return nil }
        let byEvent = [LifecyclePhase.start, .update, .end].compactMap { phase -> String? in
            guard let counts = pushes[phase] else { return nil }
            return "\(phase.rawValue) \(String(format: "%.0f", Double(counts.urgent) * 100 / Double(counts.all)))%"
        }
        return Finding(
            practice: "all-priority-10",
            title: "Sends every Live Activity update at priority 10",
            evidence: "priority 10 by event: " + byEvent.joined(separator: ", ")
                + " of \(updates.formatted()) updates",
            cost: throttled.map {
                "the budget model (\(figures.budgetModel ?? "")) drops \(share($0, of: updates)) updates on the "
                    + "devices, though APNs answered 200; the budget they spend is gone for the updates that matter"
            }
                ?? "the budget was not modelled: a device drops the priority-10 updates past its budget, though APNs "
                + "answers 200, and the budget they spend is gone for the updates that matter",
            advice: "Send routine updates at priority 5 and keep priority 10 for the few a user must see at once.",
            // Without a model, every urgent update is at risk.
            pushesAffected: max(throttled ?? urgent, 1)
        )
    }

    /// Pushes without `apns-expiration` (APNs stores them for up to 30 days and may deliver them
    /// late) or with one already past.
    static func expiration(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        figures.missingExpiration = records.count { $0.expiration.isEmpty }
        figures.expirationInPast = records.count { record in
            Int64(record.expiration).map { $0 > 0 && $0 < record.receivedMs / 1000 } ?? false
        }
        let affected = figures.missingExpiration + figures.expirationInPast
        guard affected > 0 else { return nil }
        return Finding(
            practice: "missing-expiration",
            title: "Leaves apns-expiration out, or sets it in the past",
            evidence:
                "\(share(figures.missingExpiration, of: records.count)) pushes without apns-expiration; "
                + "\(figures.expirationInPast.formatted()) with one already past",
            cost:
                "APNs stores a push without it for up to 30 days and delivers it when the device returns: a stale "
                + "update arrives late; one already past gets a single attempt",
            advice: "Set apns-expiration to when the push stops being worth showing (0 to try once).",
            pushesAffected: affected
        )
    }

    /// Live Activity starts and updates without a `stale-date`, or with one already past.
    static func staleDate(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        var states = 0
        for record in records where record.pushType == "liveactivity" && record.event != .end {
            states += 1
            guard let staleDate = record.staleDateSeconds else {
                figures.missingStaleDate += 1
                continue
            }
            if staleDate <= record.receivedMs / 1000 { figures.staleOnArrival += 1 }
        }
        let affected = figures.missingStaleDate + figures.staleOnArrival
        guard affected > 0 else { return nil }
        return Finding(
            practice: "stale-date",
            title: "Sends Live Activity states without a stale-date, or already stale",
            evidence:
                "\(share(figures.missingStaleDate, of: states)) starts and updates without stale-date; "
                + "\(figures.staleOnArrival.formatted()) stale on arrival",
            cost: "when updates stop (a sender outage, a spent budget) the device shows the last state as current",
            advice: "Set stale-date to when the state stops being true, so the activity can show it is out of date.",
            pushesAffected: affected
        )
    }

    /// Payloads within a tenth of the limit (4 KB, 5 KB for VoIP): one more field and they fail
    /// with 413.
    static func payloadNearLimit(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        var near = 0
        var largest = 0
        for record in records where record.payloadBytes * 10 >= (record.pushType == "voip" ? 5120 : 4096) * 9 {
            near += 1
            largest = max(largest, record.payloadBytes)
        }
        figures.payloadsNearLimit = near
        guard near > 0 else { return nil }
        let tooLarge = records.count { $0.status == 413 }
        return Finding(
            practice: "payload-near-limit",
            title: "Sends payloads near or over the size limit",
            evidence:
                "\(share(near, of: records.count)) payloads of at least 90% of the limit, the largest "
                + "\(largest.formatted()) bytes; \(tooLarge.formatted()) refused 413",
            cost: "a longer string in the content-state and the push is refused 413 PayloadTooLarge",
            advice: "Keep the content-state small: identifiers and numbers, with text in the app.",
            pushesAffected: near
        )
    }

    /// Pushes to a token after APNs answered 410 for it: they can never be delivered.
    static func goneTokens(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        var gone = Set<String>()
        var after = 0
        for record in records where !record.deviceToken.isEmpty {
            if gone.contains(record.deviceToken) { after += 1 }
            if record.status == 410 { gone.insert(record.deviceToken) }
        }
        figures.pushesToGoneTokens = after
        guard after > 0 else { return nil }
        return Finding(
            practice: "gone-tokens",
            title: "Keeps sending to tokens APNs answered 410",
            evidence: "\(after.formatted()) pushes to \(gone.count.formatted()) tokens after their 410",
            cost: "requests that can never be delivered, and a sender that looks careless to APNs",
            advice: "Delete a token when APNs answers 410 Unregistered or ExpiredToken.",
            pushesAffected: after
        )
    }
}
