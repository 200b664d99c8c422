import Budget
import Foundation
import Pages
import Workload

/// What `pushbench budget` prints: the headline figures of a report, and the sweep table.
package enum BudgetConsole {
    package static func percent(_ count: Int, of total: Int) -> String {
        String(format: "%.1f%%", Double(count) * 100 / Double(max(total, 1)))
    }

    package static func seconds(_ ms: UInt64?) -> String {
        ms.map { String(format: "%.1f s", Double($0) / 1000) } ?? "–"
    }

    /// The summary of `report`, one figure per line.
    package static func lines(_ report: BudgetReport) -> [String] {
        let result = report.result
        let tally = result.tally
        let parameters = result.parameters
        var lines = [
            "budget of \(result.name): \(result.activities) activities, preset \(parameters.name)",
            "  \(BudgetReport.estimateNote)",
        ]
        if result.interrupted {
            lines.append("  interrupted: these figures cover the pushes simulated before the stop")
        }
        lines += [
            String(
                format: "  parameters: burst %g, %g/h, low-priority window %g s, frequent %@, start burst %g, %g/h",
                parameters.burst,
                parameters.perHour,
                parameters.lowPriorityIntervalSeconds,
                parameters.frequentUpdates ? "×\(parameters.frequentFactor)" : "off",
                parameters.startBurst,
                parameters.startPerHour
            ),
            "pushes: \(tally.pushes)",
        ]
        for outcome in BudgetOutcome.allCases {
            let count = tally.count(outcome)
            lines.append(
                "  \(outcome.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0))"
                    + " \(String(count).padding(toLength: 12, withPad: " ", startingAt: 0)) \(percent(count, of: tally.pushes))"
            )
        }
        lines.append(
            "activities throttled at least once: \(tally.activitiesThrottled) of \(tally.activitiesBegun) "
                + "(\(percent(tally.activitiesThrottled, of: tally.activitiesBegun))); median first throttle "
                + seconds(
                    tally.firstThrottleAfterStartMs.totalCount > 0
                        ? tally.firstThrottleAfterStartMs.valueAtPercentile(50) : nil
                )
                + " after start"
        )
        lines.append(
            "ends not shown (throttled or coalesced, so the activity stays on screen): \(tally.endsNotShown)"
        )
        lines.append(
            "display lag p50 \(seconds(tally.lagMs(atPercentile: 50))), p99 \(seconds(tally.lagMs(atPercentile: 99))); "
                + "key events p99 \(seconds(tally.lagMs(atPercentile: 99, keyEventsOnly: true))); "
                + "never shown \(tally.neverShown) (key \(tally.keyNeverShown))"
        )
        if let recommendations = report.recommendations { lines += recommendationLines(recommendations) }
        return lines + [footer(result)]
    }

    /// The model's recommendations: the steady rates that never throttle, and the cheapest
    /// priority policy that meets the key-event goal, beside the scenario's own.
    private static func recommendationLines(_ recommendations: BudgetRecommendations) -> [String] {
        var lines = ["recommendations (computed by the model):"]
        for rate in recommendations.steadyRates {
            lines.append(
                String(
                    format: "  steady priority 10, %.0f h activity, frequent %@: at most one every %d s (%.1f/h)",
                    Double(rate.durationSeconds) / 3600,
                    rate.frequent ? "on" : "off",
                    rate.intervalSeconds,
                    rate.perHour
                )
            )
        }
        guard let search = recommendations.policy else { return lines }
        let goal = String(
            format: "%.0f%% of key events within %g s",
            recommendations.requiredShare * 100,
            recommendations.keyLagTargetSeconds
        )
        if let recommended = search.recommended {
            lines.append(
                "  cheapest policy for \(goal): \(recommended.summary) "
                    + String(format: "(%.1f p10 updates/activity)", recommended.p10PerActivity)
            )
        } else {
            lines.append("  no policy reaches \(goal); best " + String(format: "%.1f%%", search.bestShare * 100))
        }
        lines.append(
            "  the scenario's policy: \(search.current.summary) "
                + String(
                    format: "(%.1f p10 updates/activity, %.1f%% of key events within target)",
                    search.current.p10PerActivity,
                    search.current.keyShareWithinTarget * 100
                )
        )
        return lines
    }

    private static func footer(_ result: BudgetResult) -> String {
        String(
            format: "simulated %d pushes in %.2f s on %d thread(s): %.1f M pushes/s",
            result.tally.pushes,
            result.wallSeconds,
            result.threads,
            result.pushesPerSecond / 1e6
        )
    }

    /// The sweep as `budget_sweep.csv`.
    package static func sweepTable(_ rows: [BudgetSweep.Row], keyLagTargetSeconds: Double) -> CSVTable {
        var table = CSVTable(columns: [
            "preset", "policy", "pushes", "pushes_p10", "shown_pct", "throttled_pct", "coalesced_pct",
            "activities_throttled_pct", "key_within_target_pct", "display_lag_p99_s", "key_display_lag_p99_s",
        ])
        for row in rows {
            let tally = row.tally
            func p99(key: Bool) -> String {
                tally.lagMs(atPercentile: 99, keyEventsOnly: key).map { String(format: "%.1f", Double($0) / 1000) }
                    ?? ""
            }
            table.append([
                row.preset, row.policy, String(tally.pushes), String(tally.minutes.reduce(0) { $0 + $1.pushesP10 }),
                share(tally.count(.shown), tally.pushes), share(tally.count(.throttled), tally.pushes),
                share(tally.count(.coalesced), tally.pushes), share(tally.activitiesThrottled, tally.activitiesBegun),
                String(format: "%.2f", tally.keyShareShown(withinMs: UInt64(keyLagTargetSeconds * 1000)) * 100),
                p99(key: false), p99(key: true),
            ])
        }
        return table
    }

    /// The same scenario delivered per token and by broadcast, as `budget_delivery.csv`: what the
    /// sender sends against what the devices receive and show.
    package static func deliveryTable(_ results: [(delivery: Scenario.Delivery, result: BudgetResult)]) -> CSVTable {
        var table = CSVTable(columns: [
            "delivery", "sender_pushes", "broadcasts", "device_pushes", "shown_pct", "throttled_pct", "coalesced_pct",
            "activities_throttled_pct", "ends_not_shown", "display_lag_p99_s", "simulated_s",
        ])
        for (delivery, result) in results {
            let tally = result.tally
            let counts = [tally.senderPushes, tally.broadcasts, tally.pushes].map(String.init)
            let shares = [
                share(tally.count(.shown), tally.pushes), share(tally.count(.throttled), tally.pushes),
                share(tally.count(.coalesced), tally.pushes), share(tally.activitiesThrottled, tally.activitiesBegun),
            ]
            let lag = tally.lagMs(atPercentile: 99).map { String(format: "%.1f", Double($0) / 1000) } ?? ""
            table.append(
                [delivery.rawValue] + counts + shares
                    + [String(tally.endsNotShown), lag, String(format: "%.2f", result.wallSeconds)]
            )
        }
        return table
    }

    /// `count` as a percentage of `total` for a CSV column, two decimals.
    private static func share(_ count: Int, _ total: Int) -> String {
        String(format: "%.2f", Double(count) * 100 / Double(max(total, 1)))
    }
}
