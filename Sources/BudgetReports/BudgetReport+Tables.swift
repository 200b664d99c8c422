import Budget
import Foundation
import Pages

extension BudgetReport {
    /// Per simulated minute: pushes by priority, their outcomes, and the live activities'
    /// buckets at the minute's end.
    public var timelineTable: CSVTable {
        var table = CSVTable(
            columns: ["minute", "time_s", "pushes_p10", "pushes_p5", "pushes_p1"]
                + BudgetOutcome.allCases.map { "pushes_\($0.rawValue)" }
                + [
                    "activities_live", "activities_exhausted", "activities_exhausted_pct", "activities_throttled_total",
                    "budget_left_p50_pct", "budget_left_p10_pct",
                ]
        )
        var throttledSoFar = 0
        let tally = result.tally
        for (minute, row) in tally.minutes.enumerated() {
            throttledSoFar += row.firstThrottles
            let share = row.live > 0 ? String(format: "%.2f", Double(row.exhausted) * 100 / Double(row.live)) : "0"
            table.append(
                [minute, minute * 60, row.pushesP10, row.pushesP5, row.pushesP1].map(String.init)
                    + row.outcomes.map(String.init)
                    + [String(row.live), String(row.exhausted), share, String(throttledSoFar)]
                    + [0.5, 0.1].map { tally.remainingPercent(minute: minute, quantile: $0).map(String.init) ?? "" }
            )
        }
        return table
    }

    /// The outcome mix per event kind: `budget_by_event.csv`'s rows and `budget_summary.json`'s
    /// `by_event`.
    var eventRows: [BudgetSummary.EventRow] {
        let tally = result.tally
        return tally.labels.names.indices.compactMap { label in
            let pushes: [Int] = (0..<3).map { tally.pushes(label: label, priorityIndex: $0) }
            guard pushes.reduce(0, +) > 0 else { return nil }
            let lag = Self.lagPercentilesMs(tally.lagMsByLabel[label])
            let count = { (outcome: BudgetOutcome) in tally.count(outcome, label: label) }
            return BudgetSummary.EventRow(
                event: tally.labels.names[label],
                keyEvent: tally.labels.isKey[label],
                pushesP10: pushes[0],
                pushesP5: pushes[1],
                pushesP1: pushes[2],
                pushesShown: count(.shown),
                pushesThrottled: count(.throttled),
                pushesCoalesced: count(.coalesced),
                pushesDroppedEnded: count(.droppedEnded),
                pushesDroppedStale: count(.droppedStale),
                pushesStartThrottled: count(.startThrottled),
                pushesNotStarted: count(.notStarted),
                displayLagP50Ms: lag["p50"],
                displayLagP99Ms: lag["p99"],
                displayLagMaxMs: lag["max"],
                updatesNeverShown: tally.neverShownByLabel[label]
            )
        }
    }

    /// `budget_by_event.csv`.
    public var eventTable: CSVTable {
        var table = CSVTable(columns: BudgetSummary.EventRow.columns)
        for row in eventRows { table.append(row.csvValues) }
        return table
    }

    /// Display-lag percentiles of all updates and of key events.
    public var lagTable: CSVTable {
        var table = CSVTable(columns: ["percentile", "display_lag_all_ms", "display_lag_key_ms"])
        let all = result.tally.lagMs
        let key = result.tally.keyLagMs
        for level in [0, 10, 25, 50, 75, 90, 95, 99, 99.9, 100] {
            table.append(
                [String(format: "%g", level)]
                    + [all, key].map { $0.totalCount > 0 ? String($0.valueAtPercentile(level)) : "" }
            )
        }
        return table
    }

    /// `budget_activities.csv`: the sampled activities.
    public var activityTable: CSVTable {
        var table = CSVTable(
            columns: [
                "activity", "device", "began_at_s", "first_throttle_at_s", "first_throttle_after_start_s",
                "frequent_updates",
            ] + BudgetOutcome.allCases.map { "pushes_\($0.rawValue)" }
                + ["max_display_lag_s", "updates_never_shown", "p10_left_updates"]
        )
        func seconds(_ ms: Int64?) -> String { ms.map { String(format: "%.3f", Double($0) / 1000) } ?? "" }
        for record in result.tally.sampled {
            let afterStart = record.firstThrottleMs.flatMap { throttle in record.beganAtMs.map { throttle - $0 } }
            table.append(
                [String(record.activity), String(record.device), seconds(record.beganAtMs)]
                    + [seconds(record.firstThrottleMs), seconds(afterStart), String(record.frequent)]
                    + record.outcomes.map(String.init)
                    + [seconds(record.maxLagMs), String(record.neverShown), String(format: "%.3f", record.tokensLeft)]
            )
        }
        return table
    }
}
