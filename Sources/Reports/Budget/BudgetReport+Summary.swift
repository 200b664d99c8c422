import Budget
import Foundation
import Workload

extension BudgetReport {
    /// `budget_summary.json` as a JSON-ready dictionary; units in every key, documented in
    /// `Reports/README.md`.
    public var summary: [String: Any] {
        let tally = result.tally
        var outcomes: [String: Int] = [:]
        for outcome in BudgetOutcome.allCases { outcomes[outcome.rawValue] = tally.count(outcome) }
        let p10 = tally.minutes.reduce(0) { $0 + $1.pushesP10 }
        var document: [String: Any] = [
            "schema_version": 1,
            "kind": "budget",
            "run_id": runID,
            "command_line": commandLine,
            "estimate_note": Self.estimateNote,
            "interrupted": result.interrupted,
            "input": [
                "kind": result.input.rawValue, "name": result.name,
                "activities": result.activities, "seed": result.seed.map { $0 as Any } ?? NSNull(),
                "activities_per_device": result.activitiesPerDevice,
            ],
            "parameters": result.parameters.dictionary.merging(["source": parametersSource]) { first, _ in first },
            "pushes": [
                "total": tally.pushes, "p10": p10, "p5": tally.minutes.reduce(0) { $0 + $1.pushesP5 },
                "p1": tally.minutes.reduce(0) { $0 + $1.pushesP1 },
            ],
            "outcomes": outcomes,
            "dropped_ended_by_cause": [
                "after_end": tally.droppedAfterEnd, "after_active_limit": tally.droppedAfterLimit,
            ],
            "activities": [
                "begun": tally.activitiesBegun, "not_started": tally.activitiesNotStarted,
                "throttled": tally.activitiesThrottled, "frequent_updates": tally.activitiesFrequent,
                "ends_not_shown": tally.endsNotShown,
                "throttled_share": tally.activitiesBegun > 0
                    ? Double(tally.activitiesThrottled) / Double(tally.activitiesBegun) : 0,
            ],
            "spent": spent,
            "display_lag_ms": Self.lagPercentilesMs(tally.lagMs),
            "key_display_lag_ms": Self.lagPercentilesMs(tally.keyLagMs),
            "updates_never_shown": tally.neverShown,
            "key_events_never_shown": tally.keyNeverShown,
            "first_throttle_after_start_ms": Self.lagPercentilesMs(tally.firstThrottleAfterStartMs),
            "by_event": eventRows.map { row in
                Dictionary(uniqueKeysWithValues: zip(Self.eventColumns, row.map { $0 ?? NSNull() }))
            },
            "simulation": [
                "threads": result.threads, "wall_s": result.wallSeconds, "pushes_per_s": result.pushesPerSecond,
            ],
            "machine": RunContext.machineObject,
        ]
        if let recommendations { document["recommendations"] = Self.dictionary(recommendations) }
        if let feed = result.runFeed {
            var run: [String: Any] = ["clock": feed.clock.rawValue, "clock_meaning": feed.clock.meaning]
            if let span = feed.spanMs {
                run["first_push_ms"] = span.lowerBound
                run["last_push_ms"] = span.upperBound
            }
            run["partial"] = feed.partial
            if let whole = feed.wholeScenario {
                run["scenario_pushes"] = whole.pushes
                run["scenario_last_event_ms"] = whole.lastEventMs
            }
            document["run_feed"] = run
        }
        return document
    }

    /// What the sender's policy spent, for a budget gate (`pushbench compare` on two summaries):
    /// priority-10 pushes per activity-hour (activity-hours counted as the activities live at
    /// each minute's end), and the share of key events shown within the target.
    private var spent: [String: Any] {
        let tally = result.tally
        let activityHours = Double(tally.minutes.reduce(0) { $0 + $1.live }) / 60
        let p10 = tally.minutes.reduce(0) { $0 + $1.pushesP10 }
        return [
            "activity_hours": activityHours,
            "p10_per_activity_hour": activityHours > 0 ? Double(p10) / activityHours : 0,
            "key_lag_target_s": keyLagTargetSeconds,
            "key_events_within_target_share": tally.keyShareShown(withinMs: UInt64(keyLagTargetSeconds * 1000)),
        ]
    }

    private static func dictionary(_ recommendations: BudgetRecommendations) -> [String: Any] {
        func policy(_ policy: PriorityPolicy) -> [String: Any] {
            [
                "kinds_at_p10": policy.kindsAt10.map(\.rawValue),
                "p10_updates_per_activity": policy.p10PerActivity,
                "key_events_within_target_share": policy.keyShareWithinTarget,
                "p10_throttled_share": policy.throttledShare,
            ]
        }
        var document: [String: Any] = [
            "steady_p10": recommendations.steadyRates.map {
                [
                    "activity_duration_s": $0.durationSeconds, "frequent_updates": $0.frequent,
                    "interval_s": $0.intervalSeconds, "updates_per_hour": $0.perHour,
                ]
            }
        ]
        guard let search = recommendations.policy else { return document }
        var priority: [String: Any] = [
            "key_lag_target_s": recommendations.keyLagTargetSeconds,
            "required_share": recommendations.requiredShare,
            "sample_activities": recommendations.sampleActivities,
            "candidates_tried": search.tried,
            "current": policy(search.current),
        ]
        if let recommended = search.recommended {
            priority["recommended"] = policy(recommended)
        } else {
            priority["recommended"] = NSNull()
            priority["best_share_reached"] = search.bestShare
        }
        document["priority_policy"] = priority
        return document
    }
}
