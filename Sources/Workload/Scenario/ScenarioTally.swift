import Foundation

/// Counts of a streamed scenario: by phase, by event kind and priority, and per simulated second.
package struct ScenarioTally: Sendable {
    package private(set) var events = 0
    private var byKind = [Int](repeating: 0, count: EventKind.allCases.count * 11)
    private var byPhase: [LifecyclePhase: Int] = [:]
    private var firstMs = Int64.max
    private var lastMs = Int64.min
    private var perSecond: [Int64: Int] = [:]
    private var currentSecond = Int64.min
    private var inCurrentSecond = 0

    /// No events counted yet.
    package init() {}

    /// Counts `event`.
    package mutating func count(_ event: WorkloadEvent) {
        events += 1
        byKind[event.kind.ordinal * 11 + event.priority] += 1
        firstMs = min(firstMs, event.timeMs)
        lastMs = max(lastMs, event.timeMs)
        let second = event.timeMs / 1000
        if second != currentSecond {
            closeSecond()
            currentSecond = second
        }
        inCurrentSecond += 1
        if event.phase != .update { byPhase[event.phase, default: 0] += 1 }
    }

    private mutating func closeSecond() {
        if inCurrentSecond > 0 { perSecond[currentSecond, default: 0] += inCurrentSecond }
        inCurrentSecond = 0
    }

    /// Adds another thread's counts of its share of the stream.
    package mutating func merge(_ other: ScenarioTally) {
        var other = other
        other.closeSecond()
        closeSecond()
        events += other.events
        for index in byKind.indices { byKind[index] += other.byKind[index] }
        byPhase.merge(other.byPhase, uniquingKeysWith: +)
        firstMs = min(firstMs, other.firstMs)
        lastMs = max(lastMs, other.lastMs)
        perSecond.merge(other.perSecond, uniquingKeysWith: +)
    }

    /// What `pushbench scenarios stream` prints of the counts: streamed in `seconds` on `threads`.
    package func report(scenario: Scenario, seconds: Double, threads: Int) -> [String] {
        let starts = byPhase[.start] ?? 0
        let ends = byPhase[.end] ?? 0
        var lines = [
            "scenario \(scenario.name): \(scenario.activities) activities, seed \(scenario.seed)",
            "pushes: \(events) (start \(starts), update \(events - starts - ends), end \(ends))",
        ]
        if events > 0 {
            let span = Double(lastMs - firstMs) / 1000
            let busiest = perSecond.max { ($0.value, -$0.key) < ($1.value, -$1.key) }!
            lines.append(String(format: "simulated span: %.0f s (%.2f h)", span, span / 3600))
            lines.append("busiest simulated second: \(busiest.value) pushes at \(busiest.key) s")
        }
        lines.append("by event kind and apns-priority:")
        for kind in EventKind.allCases {
            for priority in [10, 5, 1] where byKind[kind.ordinal * 11 + priority] > 0 {
                let count = byKind[kind.ordinal * 11 + priority]
                lines.append(
                    "  \(kind.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) p\(priority)  \(count)"
                )
            }
        }
        lines.append(
            String(
                format: "generated in %.2f s on %d thread(s): %.1f M events/s",
                seconds,
                threads,
                Double(events) / seconds / 1e6
            )
        )
        return lines
    }
}
