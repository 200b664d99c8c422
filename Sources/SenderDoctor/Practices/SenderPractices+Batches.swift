import Workload

/// The pace check of a sender that works in batches: a scheduler that wakes every T seconds,
/// sends what is due one batch at a time and sleeps. Its rate averaged over the run hides
/// both its ceiling (N pushes every T s) and what caps it while busy (its pushes in flight),
/// so both are judged on the bursts alone.
extension SenderPractices {
    /// A gap between pushes this long, milliseconds, and `idleGapFactor` times the median gap,
    /// is idle: the sender was waiting for its next tick, not for an answer.
    static let idleGapFloorMs: Int64 = 250
    static let idleGapFactor: Int64 = 10
    /// Bursts, and the share of the recording spent idle, that make a batch pattern.
    static let burstsForPattern = 3
    static let idleShareForPattern = 0.2
    /// Above this share of pushes refused as overload (429, 500, 503), gaps are a sender
    /// backing off (which `retryWithoutBackoff` judges), not a tick.
    static let overloadShareForBackoff = 0.1
    /// A connection whose last push is older than this, milliseconds, holds nothing in flight.
    static let inFlightWindowMs: Int64 = 1000

    /// A run of pushes with no idle gap inside it.
    struct Burst: Equatable {
        var firstMs: Int64
        var lastMs: Int64
        var pushes: Int
    }

    /// Pushes in flight across every connection as each push arrived, itself included: the
    /// streams the mock saw open on each connection that carried a push within the last
    /// second, summed. The sender's whole concurrency, where `streamsInFlightP90` is one
    /// connection's.
    static func inFlight(_ records: TrafficTable) -> [Int] {
        var open: [Int: (lastMs: Int64, streams: Int)] = [:]
        var seen: [(ms: Int64, connection: Int)] = []
        var expired = 0
        var total = 0
        var inFlight: [Int] = []
        inFlight.reserveCapacity(records.count)
        for record in records {
            guard let streams = record.streamsOpen else { continue }
            while expired < seen.count, seen[expired].ms < record.receivedMs - inFlightWindowMs {
                let old = seen[expired]
                if let last = open[old.connection], last.lastMs == old.ms {
                    total -= last.streams
                    open[old.connection] = nil
                }
                expired += 1
            }
            total += streams - (open[record.connection]?.streams ?? 0)
            open[record.connection] = (record.receivedMs, streams)
            seen.append((record.receivedMs, record.connection))
            inFlight.append(total)
        }
        return inFlight
    }

    /// The recording cut at its idle gaps: each burst's first and last arrival, and its pushes.
    static func bursts(_ records: TrafficTable) -> [Burst] {
        guard let first = records.first else { return [] }
        var gaps: [Int64] = []
        gaps.reserveCapacity(records.count)
        var previous = first.receivedMs
        for record in records.dropFirst() {
            gaps.append(record.receivedMs - previous)
            previous = record.receivedMs
        }
        let idle = max(idleGapFloorMs, (median(gaps) ?? 0) * idleGapFactor)
        var bursts = [Burst(firstMs: first.receivedMs, lastMs: first.receivedMs, pushes: 1)]
        for record in records.dropFirst() {
            if record.receivedMs - bursts[bursts.count - 1].lastMs >= idle {
                bursts.append(Burst(firstMs: record.receivedMs, lastMs: record.receivedMs, pushes: 1))
            } else {
                bursts[bursts.count - 1].lastMs = record.receivedMs
                bursts[bursts.count - 1].pushes += 1
            }
        }
        return bursts
    }

    /// A sender that sends in bursts with idle gaps between: N pushes every T s is its ceiling,
    /// whatever its CPU or APNs, and its rate while busy is what its pushes in flight allow.
    /// Sets the busy rate that `concurrencyCapped` judges, and the in-flight percentiles.
    static func batchPattern(_ figures: inout Figures, _ records: TrafficTable, _: Int?) -> Finding? {
        let inFlight = inFlight(records).sorted()
        if !inFlight.isEmpty {
            figures.inFlightP50 = inFlight[inFlight.count / 2]
            figures.inFlightP90 = inFlight[min(inFlight.count - 1, inFlight.count * 9 / 10)]
        }
        let overloaded = records.lazy.filter { [429, 500, 503].contains($0.status) }.count
        guard Double(overloaded) <= overloadShareForBackoff * Double(records.count) else { return nil }
        let bursts = bursts(records)
        let period = median(zip(bursts.dropFirst(), bursts).map { $0.firstMs - $1.firstMs })
        // A burst lasts from its first push to one period of its own pace after its last.
        let busyMs = bursts.reduce(Int64(0)) { busy, burst in
            busy + (burst.lastMs - burst.firstMs) * Int64(burst.pushes) / Int64(max(burst.pushes - 1, 1))
        }
        let recordingMs = Int64(figures.recordingSeconds * 1000)
        guard bursts.count >= burstsForPattern, let period, period > 0, busyMs > 0,
            Double(recordingMs - busyMs) >= idleShareForPattern * Double(recordingMs)
        else { return nil }
        let size = median(bursts.map(\.pushes)) ?? 0
        let busyRate = Double(records.count) / (Double(busyMs) / 1000)
        figures.bursts = bursts.count
        figures.burstPushesMedian = size
        figures.burstPeriodSeconds = Double(period) / 1000
        figures.busyRatePerSecond = busyRate
        let ceiling = Double(size) / (Double(period) / 1000)
        return Finding(
            practice: "batch-pattern",
            title: "Sends in batches: bursts with idle gaps between, so its tick sets a ceiling",
            evidence:
                "\(bursts.count.formatted()) bursts of \(size.formatted()) pushes (median) every "
                + String(format: "%.2f s", Double(period) / 1000) + " (median), busy "
                + String(format: "%.0f%%", Double(busyMs) * 100 / Double(max(recordingMs, 1))) + " of the time at "
                + String(format: "%.0f pushes/s", busyRate) + " while busy, with \(figures.inFlightP50 ?? 0) pushes "
                + "in flight at p50 and \(figures.inFlightP90 ?? 0) at p90",
            cost:
                String(format: "its ceiling is %d ÷ %.2f s = %.1f pushes/s", size, Double(period) / 1000, ceiling)
                + ", whatever its CPU or APNs: a peak of more waits for later ticks, and an average over the run "
                + String(format: "(%.1f pushes/s) hides both the ceiling and the busy rate", figures.averageRate),
            advice:
                "Send what falls due as it falls due, or take bigger batches more often, and keep more pushes in "
                + "flight while a batch goes out: the busy rate is the in-flight count ÷ the round trip.",
            pushesAffected: records.count
        )
    }
}

extension SenderPractices.Figures {
    /// Pushes a second over the whole recording.
    var averageRate: Double { recordingSeconds > 0 ? Double(pushes) / recordingSeconds : 0 }
}
