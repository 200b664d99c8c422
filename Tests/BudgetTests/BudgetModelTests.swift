import Budget
import Workload
import XCTest

/// Hand-computed cases, one rule each, from `docs/budget-model.md`.
final class BudgetModelTests: XCTestCase {
    private let update = PushLabels.phaseLabel(.update)

    /// A model of `activities` activities on `devices` devices.
    private func model(_ parameters: BudgetParameters, activities: Int = 1, devices: Int = 1) -> BudgetModel {
        BudgetModel(
            parameters: parameters,
            activities: 0..<activities,
            devices: 0..<devices,
            labels: .phases,
            seed: 7,
            sampleEvery: 1
        )
    }

    /// The tally of `pushes` through a model of `parameters`.
    private func simulate(
        _ parameters: BudgetParameters,
        activities: Int = 1,
        devices: Int = 1,
        _ pushes: [BudgetPush]
    ) -> BudgetTally {
        var budget = model(parameters, activities: activities, devices: devices)
        for push in pushes { budget.receive(push) }
        return budget.finish()
    }

    private func push(
        _ timeMs: Int64,
        priority: Int = 10,
        activity: Int = 0,
        device: Int = 0,
        phase: LifecyclePhase = .update,
        timestamp: Int64? = nil
    ) -> BudgetPush {
        BudgetPush(
            timeMs: timeMs,
            activity: activity,
            device: device,
            phase: phase,
            priority: priority,
            timestampSeconds: timestamp ?? timeMs / 1000,
            label: PushLabels.phaseLabel(phase)
        )
    }

    private func outcomes(_ tally: BudgetTally, activity: Int = 0) -> [BudgetOutcome: Int] {
        let record = tally.sampled.first { $0.activity == activity }!
        var result: [BudgetOutcome: Int] = [:]
        for outcome in BudgetOutcome.allCases where record.outcomes[outcome.ordinal] > 0 {
            result[outcome] = record.outcomes[outcome.ordinal]
        }
        return result
    }

    func testBucketTakesOneTokenPerShownUpdateAndThrottlesBelowOne() {
        // burst 2, one token per second.
        let tally = simulate(BudgetParameters(burst: 2, perHour: 3600), [0, 0, 0, 999, 1000].map { push($0) })
        // 2 → 1 → 0 shown, shown; 0 throttled; 0.999 throttled; 1.000 shown.
        XCTAssertEqual(outcomes(tally), [.shown: 3, .throttled: 2])
        XCTAssertEqual(tally.sampled[0].firstThrottleMs, 0)
        XCTAssertEqual(tally.activitiesThrottled, 1)
    }

    func testToleranceOfOneBillionthCountsAsAToken() {
        // After 1000 ms the bucket holds 1 − 1e-10 (shown) in one case and 1 − 1e-8 (throttled)
        // in the other.
        for (shortfall, expected) in [(1e-10, BudgetOutcome.shown), (1e-8, .throttled)] {
            let tally = simulate(BudgetParameters(burst: 1, perHour: 3600 * (1 - shortfall)), [push(0), push(1000)])
            XCTAssertEqual(outcomes(tally)[expected], expected == .shown ? 2 : 1, "shortfall \(shortfall)")
        }
    }

    func testRefillStopsAtBurst() {
        let tally = simulate(
            BudgetParameters(burst: 2, perHour: 3600),
            [push(0)] + Array(repeating: push(10_000), count: 3)
        )
        // At 10 s the bucket is back to 2, not 11: two shown, one throttled.
        XCTAssertEqual(outcomes(tally), [.shown: 3, .throttled: 1])
    }

    func testLowPriorityWindowShowsItsLatestUpdateAtItsEnd() {
        // The window [0, 30 s) closes before the push sent at 30 s opens the next one.
        let tally = simulate(
            BudgetParameters(lowPriorityIntervalSeconds: 30),
            [0, 10_000, 20_000, 30_000].map { push($0, priority: 5) }
        )
        XCTAssertEqual(outcomes(tally), [.shown: 2, .coalesced: 2])
        // Lags: 30, 20 and 10 s covered by the state shown at 30 s; 30 s for the last window.
        XCTAssertEqual(tally.lagMs.totalCount, 4)
        XCTAssertEqual(tally.lagMs.countForValue(10_000), 1)
        XCTAssertEqual(tally.lagMs.countForValue(20_000), 1)
        XCTAssertEqual(tally.lagMs.countForValue(30_000), 2)
        XCTAssertEqual(tally.sampled[0].maxLagMs, 30_000)
        XCTAssertEqual(tally.neverShown, 0)
        XCTAssertEqual(tally.count(.shown, label: update), 2)
    }

    func testPriorityOneCoalescesLikePriorityFive() {
        let tally = simulate(
            BudgetParameters(lowPriorityIntervalSeconds: 30),
            [
                push(0, priority: 1),
                push(1000, priority: 5),
            ]
        )
        XCTAssertEqual(outcomes(tally), [.shown: 1, .coalesced: 1])
    }

    func testShownPriorityTenReplacesThePendingLowPriorityUpdate() {
        let tally = simulate(
            BudgetParameters(lowPriorityIntervalSeconds: 30),
            [
                push(0, priority: 5),
                push(5000, priority: 10),
                push(10_000, priority: 5),
            ]
        )
        // 0 s is coalesced (its state is covered 5 s later); 10 s waits for the window's end.
        XCTAssertEqual(outcomes(tally), [.shown: 2, .coalesced: 1])
        XCTAssertEqual(tally.lagMs.count(within: 0...0), 1)
        XCTAssertEqual(tally.lagMs.countForValue(5000), 1)
        XCTAssertEqual(tally.lagMs.countForValue(20_000), 1)
    }

    func testThrottledPriorityTenLeavesThePendingUpdateAndIsNeverShown() {
        let tally = simulate(
            BudgetParameters(burst: 1, perHour: 1, lowPriorityIntervalSeconds: 30),
            [
                push(0),
                push(1000, priority: 5),
                push(2000),
            ]
        )
        XCTAssertEqual(outcomes(tally), [.shown: 2, .throttled: 1])
        XCTAssertEqual(tally.lagMs.countForValue(30_000), 1)
        // The throttled update was sent after the last shown state: never covered.
        XCTAssertEqual(tally.neverShown, 1)
        XCTAssertEqual(tally.sampled[0].neverShown, 1)
    }

    func testOlderTimestampThanTheShownOneIsStale() {
        let tally = simulate(
            BudgetParameters(),
            [
                push(0, timestamp: 100),
                push(1000, timestamp: 99),
                push(2000, timestamp: 100),
            ]
        )
        XCTAssertEqual(outcomes(tally), [.shown: 2, .droppedStale: 1])
    }

    func testActiveLimitEndsTheActivityAtStartPlusLimit() {
        let tally = simulate(
            BudgetParameters(activeLimitSeconds: 3600),
            [
                push(0, priority: 5),
                push(3_599_999, priority: 5),
                push(3_600_000, priority: 5),
            ]
        )
        XCTAssertEqual(outcomes(tally), [.shown: 2, .droppedEnded: 1])
        XCTAssertEqual(tally.droppedAfterLimit, 1)
        XCTAssertEqual(tally.droppedAfterEnd, 0)
    }

    /// A shown `end` ends the activity and later pushes are dropped; a throttled one never
    /// reached the screen, so the activity stays live, takes the next update when a token is
    /// back, and counts as an end not shown.
    func testOnlyAShownEndEndsTheActivity() {
        let cases: [(BudgetParameters, [BudgetOutcome: Int], droppedAfterEnd: Int, endsNotShown: Int)] = [
            (BudgetParameters(), [.shown: 2, .droppedEnded: 1], 1, 0),
            (BudgetParameters(burst: 1, perHour: 1), [.shown: 2, .throttled: 1], 0, 1),
        ]
        for (parameters, expected, droppedAfterEnd, endsNotShown) in cases {
            let tally = simulate(parameters, [push(0), push(10_000, phase: .end), push(3_700_000)])
            XCTAssertEqual(outcomes(tally), expected, "burst \(parameters.burst)")
            XCTAssertEqual(tally.droppedAfterEnd, droppedAfterEnd)
            XCTAssertEqual(tally.endsNotShown, endsNotShown)
        }
    }

    /// A low-priority `end` is shown at its window's end, and only then ends the activity.
    func testLowPriorityEndEndsTheActivityAtItsWindowsEnd() {
        let tally = simulate(
            BudgetParameters(lowPriorityIntervalSeconds: 30),
            [
                push(0, priority: 5),
                push(10_000, priority: 5, phase: .end),
                push(20_000),
                push(50_000),
            ]
        )
        // The end replaced the update of 0 s in the window; the priority-10 update at 20 s is
        // shown and coalesces the pending end, so the activity lives on.
        XCTAssertEqual(outcomes(tally), [.shown: 2, .coalesced: 2])
        XCTAssertEqual(tally.endsNotShown, 1)
        // Nothing after the end until its window closes at 30 s, before the push sent at 30 s:
        // the end is shown then, and the push is dropped.
        let quiet = simulate(
            BudgetParameters(lowPriorityIntervalSeconds: 30),
            [push(0, priority: 5), push(10_000, priority: 5, phase: .end), push(30_000)]
        )
        XCTAssertEqual(outcomes(quiet), [.shown: 1, .coalesced: 1, .droppedEnded: 1])
        XCTAssertEqual(quiet.endsNotShown, 0)
        XCTAssertEqual(quiet.droppedAfterEnd, 1)
    }

    func testFrequentUpdatesMultiplyTheBucket() {
        var parameters = BudgetParameters(burst: 2, perHour: 1, frequentUpdates: true, frequentFactor: 3)
        let sevenAtOnce = Array(repeating: push(0), count: 7)
        XCTAssertEqual(outcomes(simulate(parameters, sevenAtOnce)), [.shown: 6, .throttled: 1])
        // A user who turned them off gets the plain bucket.
        parameters.frequentOffFraction = 1
        XCTAssertEqual(outcomes(simulate(parameters, sevenAtOnce)), [.shown: 2, .throttled: 5])
    }

    func testFrequentOffFractionPicksAReproducibleShareOfUsers() {
        let parameters = BudgetParameters(frequentUpdates: true, frequentOffFraction: 0.25)
        func frequentCount() -> Int {
            simulate(parameters, activities: 4000, (0..<4000).map { push(0, activity: $0) }).activitiesFrequent
        }
        let count = frequentCount()
        XCTAssertEqual(count, frequentCount())
        XCTAssert((2850...3150).contains(count), "\(count) of 4000 kept frequent updates, expected about 3000")
    }

    func testPushToStartBucketPerDevice() {
        // Three activities on device 0, one on device 1; two starts per device, one per second back.
        // Starts take no priority-10 token: activity 0 still shows its update at 0.
        let tally = simulate(
            BudgetParameters(burst: 1, startBurst: 2, startPerHour: 3600),
            activities: 5,
            devices: 2,
            (0..<3).map { push(0, activity: $0, phase: .start) } + [
                push(0, activity: 3, device: 1, phase: .start),
                push(0, activity: 0),
                push(500, activity: 2),
                push(1000, activity: 4, phase: .start),
            ]
        )
        XCTAssertEqual(outcomes(tally, activity: 0), [.shown: 2])
        XCTAssertEqual(outcomes(tally, activity: 1), [.shown: 1])
        XCTAssertEqual(outcomes(tally, activity: 2), [.startThrottled: 1, .notStarted: 1])
        XCTAssertEqual(outcomes(tally, activity: 3), [.shown: 1])
        // One second later device 0 has a start again.
        XCTAssertEqual(outcomes(tally, activity: 4), [.shown: 1])
        XCTAssertEqual(tally.activitiesNotStarted, 1)
    }

    func testMinuteCensusCountsExhaustedActivitiesAndBucketLeft() {
        // burst 2, 30 per hour: after three pushes at 0 the bucket is empty; 0.5 at 60 s, 1 at 120 s.
        let tally = simulate(
            BudgetParameters(burst: 2, perHour: 30),
            Array(repeating: push(0), count: 3) + [push(150_000, priority: 5)]
        )
        XCTAssertEqual(tally.minutes.count, 3)
        XCTAssertEqual(tally.minutes[0].pushesP10, 3)
        XCTAssertEqual(tally.minutes[0].firstThrottles, 1)
        XCTAssertEqual(tally.minutes.map(\.live), [1, 1, 1])
        XCTAssertEqual(tally.minutes.map(\.exhausted), [1, 0, 0])
        XCTAssertEqual(tally.remainingPercent(minute: 0, quantile: 0.5), 25)
        XCTAssertEqual(tally.remainingPercent(minute: 1, quantile: 0.5), 50)
        XCTAssertEqual(tally.minutes[2].pushesP5, 1)
        for minute in tally.minutes { XCTAssertEqual(minute.outcomes.reduce(0, +), minute.pushes) }
    }

    func testActivityWithoutStartBeginsAtItsFirstPush() {
        let tally = simulate(
            BudgetParameters(burst: 1, perHour: 1),
            [
                push(5000)
            ]
        )
        XCTAssertEqual(tally.sampled[0].beganAtMs, 5000)
        XCTAssertEqual(outcomes(tally), [.shown: 1])
        XCTAssertEqual(tally.activitiesBegun, 1)
    }
}
