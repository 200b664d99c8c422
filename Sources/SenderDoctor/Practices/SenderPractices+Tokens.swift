import Workload

/// The provider-token checks: how often tokens are signed, how many are used at once, and
/// whether the sender's clock agrees with the server's.
extension SenderPractices {
    /// APNs lets a connection change its token at most once every 20 minutes.
    static let tokenUpdateIntervalMs: Int64 = 20 * 60 * 1000
    /// A clock this far off, seconds, is a finding; closer is ordinary drift.
    static let clockToleranceSeconds: Int64 = 60

    /// A token signed for (nearly) every push, or tokens replaced on a connection within 20
    /// minutes of the last: APNs answers 429 `TooManyProviderTokenUpdates` to a connection's
    /// changes, and every signature costs the sender an ES256 operation.
    static func tokenPerPushOrRefresh(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        var signed = 0
        var firstSeen: [String: Int64] = [:]
        var current: [Int: (token: String, sinceMs: Int64)] = [:]
        var earlyChanges = 0
        for record in records where !record.providerToken.isEmpty {
            signed += 1
            if firstSeen[record.providerToken] == nil { firstSeen[record.providerToken] = record.receivedMs }
            guard let held = current[record.connection] else {
                current[record.connection] = (record.providerToken, record.receivedMs)
                continue
            }
            guard held.token != record.providerToken else { continue }
            if record.receivedMs - held.sinceMs < tokenUpdateIntervalMs { earlyChanges += 1 }
            current[record.connection] = (record.providerToken, record.receivedMs)
        }
        figures.providerTokens = firstSeen.count
        figures.providerTokenChangesWithin20Min = earlyChanges
        let refused = records.count { $0.reason == "TooManyProviderTokenUpdates" }
        // A token per push costs a signature each even when every push has a connection of its
        // own, so nothing is refused.
        let perPush = signed >= 10 && firstSeen.count * 2 >= signed
        guard perPush || earlyChanges > 0 || refused > 0 else { return nil }
        let cost =
            "\(share(refused, of: records.count)) pushes refused 429 TooManyProviderTokenUpdates; "
            + "\(firstSeen.count.formatted()) ES256 signatures where one per 20 to 60 minutes does"
        let advice = "Sign one token and share it among every worker and connection; replace it every 20 to 60 minutes."
        if perPush {
            return Finding(
                practice: "token-per-push",
                title: "Signs a new provider token for (nearly) every push",
                evidence:
                    "\(firstSeen.count.formatted()) distinct provider tokens in \(signed.formatted()) pushes; "
                    + "\(earlyChanges.formatted()) changes of a connection's token within 20 minutes",
                cost: cost,
                advice: advice,
                pushesAffected: max(refused, firstSeen.count)
            )
        }
        let births = firstSeen.values.sorted()
        let gaps = zip(births, births.dropFirst()).map { $1 - $0 }
        let every =
            median(gaps).map { $0 < 1000 ? "\($0) ms" : String(format: "%.1f s", Double($0) / 1000) } ?? "?"
        return Finding(
            practice: "refresh",
            title: "Replaces its provider token more often than every 20 minutes",
            evidence:
                "\(earlyChanges.formatted()) changes of a connection's token within 20 minutes of the last; "
                + "a new token every \(every) (median)",
            cost: cost,
            advice: advice,
            pushesAffected: max(refused, earlyChanges)
        )
    }

    /// Several tokens in use side by side (each worker or connection signs its own), rather
    /// than a new token replacing the old one. APNs does not refuse that by itself, but a
    /// connection that meets two of them answers 429, and every signer pays for its own
    /// signatures and refreshes.
    static func tokensAtOnce(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        var times: [String: [Int64]] = [:]
        var connections: [String: Set<Int>] = [:]
        for record in records where !record.providerToken.isEmpty {
            times[record.providerToken, default: []].append(record.receivedMs)
            connections[record.providerToken, default: []].insert(record.connection)
        }
        // Tokens used once (a token per push) are the previous check's; here, the most used of
        // the tokens kept.
        let kept = times.filter { $0.value.count >= 2 }.sorted { $0.value.count > $1.value.count }.prefix(200)
        var sideBySide: [String: Int] = [:]
        for (index, (token, pushes)) in kept.enumerated() {
            for (other, otherPushes) in kept.dropFirst(index + 1)
            where sharesItsTime(pushes, otherPushes) || sharesItsTime(otherPushes, pushes) {
                sideBySide[token, default: 0] += 1
                sideBySide[other, default: 0] += 1
            }
        }
        let atOnce = (sideBySide.values.max() ?? 0) + 1
        figures.providerTokensAtOnce = kept.isEmpty ? 0 : atOnce
        guard atOnce >= 2 else { return nil }
        let held = kept.map { connections[$0.key] ?? [] }
        let perConnection = held.allSatisfy { $0.count == 1 }
        return Finding(
            practice: perConnection ? "token-per-connection" : "per-worker-tokens",
            title: perConnection
                ? "Signs a provider token per connection" : "Signs a provider token per worker or process",
            evidence:
                "\(atOnce) provider tokens used side by side (most of one's pushes inside the other's span); "
                + (perConnection
                    ? "each stayed on one connection"
                    : "\(held.map(\.count).max() ?? 0) connections shared the busiest"),
            cost:
                "\(atOnce) signers and refreshes where one does; a connection that meets two of them "
                + "(a pool that moves a worker's pushes) is answered 429 TooManyProviderTokenUpdates",
            advice: "Keep one token cache per team and key in the process (or a shared store across processes).",
            pushesAffected: atOnce - 1
        )
    }

    /// Whether at least half of `pushes` (arrival times, in order) fall within `other`'s span.
    /// A token replaced by another shares only the second or so every worker takes to pick the
    /// new one up; a token used beside another shares its whole life.
    static func sharesItsTime(_ pushes: [Int64], _ other: [Int64]) -> Bool {
        guard let first = other.first, let last = other.last else { return false }
        return pushes.count { $0 >= first && $0 <= last } * 2 >= pushes.count
    }

    /// A clock off by more than a minute: tokens issued "in the future", `aps.timestamp` away
    /// from the server's time, tokens expiring before their time (403 `ExpiredProviderToken`).
    static func clockSkew(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        var ahead: Int64?
        var seen = Set<String>()
        for record in records where !record.providerToken.isEmpty {
            guard let issuedAt = record.issuedAtSeconds, seen.insert(record.providerToken).inserted else { continue }
            ahead = max(ahead ?? .min, issuedAt - record.receivedMs / 1000)
        }
        let offsets = records.compactMap { record in record.timestampSeconds.map { $0 - record.receivedMs / 1000 } }
        let offset = median(offsets)
        figures.issuedAtAheadMaxSeconds = ahead
        figures.timestampOffsetMedianSeconds = offset
        let expired = records.count { $0.reason == "ExpiredProviderToken" }
        let tokenAhead = (ahead ?? 0) > clockToleranceSeconds
        let timestampsOff = abs(offset ?? 0) > clockToleranceSeconds
        guard tokenAhead || timestampsOff || expired > 0 else { return nil }
        var evidence: [String] = []
        if let offset, timestampsOff {
            evidence.append(
                "aps.timestamp is \(abs(offset)) s \(offset > 0 ? "ahead of" : "behind") the mock's clock (median)"
            )
        }
        if let ahead, tokenAhead {
            evidence.append("a provider token's iat was \(ahead) s in the future when first used")
        }
        if expired > 0 { evidence.append("\(expired.formatted()) pushes refused 403 ExpiredProviderToken") }
        let misdated = offsets.count { abs($0) > clockToleranceSeconds }
        return Finding(
            practice: "clock-skew",
            title: "Its clock is off",
            evidence: evidence.joined(separator: "; "),
            cost:
                "\(misdated.formatted()) Live Activity pushes carry a timestamp off by over a minute: a device drops "
                + "an update older than the one it shows, and one more than 8 hours ahead; tokens expire early "
                + "(\(expired.formatted()) refused)",
            advice: "Run NTP on every sending host; sign tokens and timestamps from the same synchronised clock.",
            pushesAffected: misdated + expired
        )
    }
}
