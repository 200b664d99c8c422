import Basics
import Budget
import Foundation
import Transport
import Workload

extension BudgetReport {
    /// `budget_summary.json`'s contents.
    public var summary: BudgetSummary {
        let tally = result.tally
        var outcomes: [String: Int] = [:]
        for outcome in BudgetOutcome.allCases { outcomes[outcome.rawValue] = tally.count(outcome) }
        return BudgetSummary(
            schemaVersion: BudgetSummary.currentSchemaVersion,
            kind: "budget",
            runID: runID,
            commandLine: commandLine,
            estimateNote: Self.estimateNote,
            interrupted: result.interrupted,
            input: BudgetSummary.Input(
                kind: result.input.rawValue,
                name: result.name,
                activities: result.activities,
                seed: result.seed,
                activitiesPerDevice: result.activitiesPerDevice
            ),
            parameters: BudgetSummary.Parameters(result.parameters, source: parametersSource),
            pushes: BudgetSummary.Pushes(
                total: tally.pushes,
                p10: tally.minutes.reduce(0) { $0 + $1.pushesP10 },
                p5: tally.minutes.reduce(0) { $0 + $1.pushesP5 },
                p1: tally.minutes.reduce(0) { $0 + $1.pushesP1 }
            ),
            outcomes: outcomes,
            droppedEndedByCause: BudgetSummary.DroppedEnded(
                afterEnd: tally.droppedAfterEnd,
                afterActiveLimit: tally.droppedAfterLimit
            ),
            activities: activities,
            spent: spent,
            displayLagMs: Self.lagPercentilesMs(tally.lagMs),
            keyDisplayLagMs: Self.lagPercentilesMs(tally.keyLagMs),
            updatesNeverShown: tally.neverShown,
            keyEventsNeverShown: tally.keyNeverShown,
            firstThrottleAfterStartMs: Self.lagPercentilesMs(tally.firstThrottleAfterStartMs),
            byEvent: eventRows,
            simulation: BudgetSummary.Simulation(
                threads: result.threads,
                wallS: result.wallSeconds,
                pushesPerS: result.pushesPerSecond
            ),
            machine: MachineDescription.current,
            recommendations: recommendations.map(BudgetSummary.Recommendations.init),
            runFeed: result.runFeed.map(BudgetSummary.RunFeed.init)
        )
    }

    /// What became of the activities.
    private var activities: BudgetSummary.Activities {
        let tally = result.tally
        return BudgetSummary.Activities(
            begun: tally.activitiesBegun,
            notStarted: tally.activitiesNotStarted,
            throttled: tally.activitiesThrottled,
            frequentUpdates: tally.activitiesFrequent,
            endsNotShown: tally.endsNotShown,
            throttledShare: tally.activitiesBegun > 0
                ? Double(tally.activitiesThrottled) / Double(tally.activitiesBegun) : 0
        )
    }

    /// What the sender's policy spent, for a budget gate (`pushbench compare` on two summaries):
    /// priority-10 pushes per activity-hour (activity-hours counted as the activities live at
    /// each minute's end), and the share of key events shown within the target.
    private var spent: BudgetSummary.Spent {
        let tally = result.tally
        let activityHours = Double(tally.minutes.reduce(0) { $0 + $1.live }) / 60
        let p10 = tally.minutes.reduce(0) { $0 + $1.pushesP10 }
        return BudgetSummary.Spent(
            activityHours: activityHours,
            p10PerActivityHour: activityHours > 0 ? Double(p10) / activityHours : 0,
            keyLagTargetS: keyLagTargetSeconds,
            keyEventsWithinTargetShare: tally.keyShareShown(withinMs: UInt64(keyLagTargetSeconds * 1000))
        )
    }
}

extension BudgetSummary.Parameters {
    /// `parameters`, from `source`.
    init(_ parameters: BudgetParameters, source: String) {
        self.init(
            preset: parameters.name,
            burstUpdates: parameters.burst,
            perHourUpdates: parameters.perHour,
            lowPriorityIntervalS: parameters.lowPriorityIntervalSeconds,
            frequentUpdates: parameters.frequentUpdates,
            frequentFactor: parameters.frequentFactor,
            frequentOffFraction: parameters.frequentOffFraction,
            startBurstStarts: parameters.startBurst,
            startPerHourStarts: parameters.startPerHour,
            activeLimitS: parameters.activeLimitSeconds,
            source: source
        )
    }
}

extension BudgetSummary.Recommendations {
    /// `recommendations`, as the summary keeps them.
    init(_ recommendations: BudgetRecommendations) {
        self.init(
            steadyP10: recommendations.steadyRates.map {
                SteadyRate(
                    activityDurationS: $0.durationSeconds,
                    frequentUpdates: $0.frequent,
                    intervalS: $0.intervalSeconds,
                    updatesPerHour: $0.perHour
                )
            },
            priorityPolicy: recommendations.policy.map { search in
                PriorityPolicySearch(
                    keyLagTargetS: recommendations.keyLagTargetSeconds,
                    requiredShare: recommendations.requiredShare,
                    sampleActivities: recommendations.sampleActivities,
                    candidatesTried: search.tried,
                    current: Policy(search.current),
                    recommended: search.recommended.map(Policy.init),
                    bestShareReached: search.recommended == nil ? search.bestShare : nil
                )
            }
        )
    }
}

extension BudgetSummary.Recommendations.Policy {
    /// `policy` and what it costs.
    init(_ policy: PriorityPolicy) {
        self.init(
            kindsAtP10: policy.kindsAt10.map(\.rawValue),
            p10UpdatesPerActivity: policy.p10PerActivity,
            keyEventsWithinTargetShare: policy.keyShareWithinTarget,
            p10ThrottledShare: policy.throttledShare
        )
    }
}

extension BudgetSummary.RunFeed {
    /// How `feed`'s pushes were modelled.
    init(_ feed: BudgetResult.RunFeed) {
        self.init(
            clock: feed.clock.rawValue,
            clockMeaning: feed.clock.meaning,
            firstPushMs: feed.spanMs?.lowerBound,
            lastPushMs: feed.spanMs?.upperBound,
            partial: feed.partial,
            scenarioPushes: feed.wholeScenario?.pushes,
            scenarioLastEventMs: feed.wholeScenario?.lastEventMs
        )
    }
}
