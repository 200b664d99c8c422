import Histogram
import Workload

/// Pushes counted by their kind, their payload's `aps.event` (`none` when it has none): what a
/// service sent before the clock began, and of what kinds.
public struct KindCounts: Sendable, Equatable {
    public var start = 0
    public var update = 0
    public var end = 0
    public var none = 0

    /// No push yet.
    public init() {}

    /// Counts one push of `phase`.
    public mutating func count(_ phase: LifecyclePhase?) {
        switch phase {
        case .start: start += 1
        case .update: update += 1
        case .end: end += 1
        case nil: none += 1
        }
    }

    /// Pushes of every kind.
    public var total: Int { start + update + end + none }

    /// The kinds that were counted, by name, as `summary.json` writes them.
    public var byName: [String: Int] {
        ["start": start, "update": update, "end": end, "none": none].filter { $0.value > 0 }
    }
}

/// One kind of owed push (updates, or ends): what was owed, what answered it, and how late, so
/// that a service's ends are judged against the ends it owed and never against its updates.
public struct KindFigures: Sendable {
    /// Pushes of this kind owed, and of them, those a push answered.
    public var owed = 0
    public var matched = 0
    /// Matched pushes that arrived before they were due, with how long before (microseconds).
    public var early = 0
    public var lead = Histogram<UInt64>.latency(digits: .two)
    /// Lag of each matched push behind its owed time, microseconds (0 when early).
    public var lag = Histogram<UInt64>.latency(digits: .two)
    /// For a service's updates: the time between one activity's update pushes, microseconds
    /// (how often a service on its own schedule, polling an upstream, pushes).
    public var cadence = Histogram<UInt64>.latency(digits: .two)

    /// Nothing owed yet.
    public init() {}

    /// Owed pushes no push answered (nor, for updates, superseded).
    public func missing(superseded: Int = 0) -> Int { max(0, owed - matched - superseded) }

    /// Books a push that answered its owed push `lagNs` after the owed time (negative: early).
    public mutating func record(lagNs: Int64) {
        matched += 1
        if lagNs < 0 {
            early += 1
            _ = lead.record(UInt64(-lagNs / 1000))
        }
        _ = lag.record(UInt64(max(0, lagNs) / 1000))
    }
}
