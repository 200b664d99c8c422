import Budget
import Workload
import XCTest

/// The simulation over scenarios: every push accounted for, per activity and per minute, and
/// the same result on any number of threads.
final class BudgetSimulationTests: XCTestCase {
    private func football(activities: Int) throws -> Scenario {
        try Scenario.builtIn(named: "football").scaled(toActivities: activities)
    }

    func testEveryPushHasOneOutcomePerActivityAndPerMinute() throws {
        var scenario = try football(activities: 300)
        // Minute ticks at priority 10 as well: about 100 a match against 4 an hour.
        scenario.cohorts[0].priorities[.minute] = 10
        let result = try BudgetSimulation(
            scenario: scenario,
            parameters: try BudgetParameters.preset(named: "conservative").parameters,
            sampleEvery: 1
        ).run()
        var received = [Int](repeating: 0, count: 300)
        var events = 0
        for event in try ScenarioStream(scenario) {
            received[event.activity] += 1
            events += 1
        }
        let tally = result.tally
        XCTAssertEqual(tally.pushes, events)
        XCTAssertEqual(tally.sampled.count, 300)
        for record in tally.sampled {
            XCTAssertEqual(record.outcomes.reduce(0, +), received[record.activity], "activity \(record.activity)")
        }
        XCTAssertEqual(tally.minutes.reduce(0) { $0 + $1.pushes }, events)
        for (minute, row) in tally.minutes.enumerated() {
            XCTAssertEqual(row.outcomes.reduce(0, +), row.pushes, "minute \(minute)")
        }
        XCTAssertGreaterThan(tally.count(.throttled), 0)
        XCTAssertGreaterThan(tally.count(.shown), 0)
        // Each update the device took is either covered by a shown state or never shown.
        let took = tally.count(.shown) + tally.count(.throttled) + tally.count(.coalesced)
        XCTAssertEqual(Int(tally.lagMs.totalCount) + tally.neverShown, took)
    }

    func testResultIsTheSameOnOneOrThreeThreads() throws {
        let scenario = try football(activities: 1000)
        var simulation = BudgetSimulation(
            scenario: scenario,
            parameters: BudgetParameters(burst: 6, perHour: 6, frequentUpdates: true, frequentOffFraction: 0.3),
            activitiesPerDevice: 7,
            threads: 1,
            sampleEvery: 10
        )
        let one = try simulation.run().tally
        simulation.threads = 3
        let three = try simulation.run()
        XCTAssertEqual(three.threads, 3)
        XCTAssertEqual(one.outcomes, three.tally.outcomes)
        XCTAssertEqual(one.minutes, three.tally.minutes)
        XCTAssertEqual(one.remainingPercent, three.tally.remainingPercent)
        XCTAssertEqual(one.lagMs, three.tally.lagMs)
        XCTAssertEqual(one.sampled, three.tally.sampled)
        XCTAssertEqual(one.activitiesFrequent, three.tally.activitiesFrequent)
        // Seven activities per device start within the join window: the push-to-start bucket
        // (10 at once) holds, so nothing is start-throttled here; with 14 it would not.
        XCTAssertEqual(one.activitiesNotStarted, 0)
    }

    /// A broadcast spends each subscriber's budget as a push to its token would: the devices
    /// see the same outcomes, the sender sends one push per group step instead of one per
    /// activity, and a group split between workers gives the same result as on one.
    func testBroadcastSpendsEachSubscribersBudgetAndSendsOncePerGroup() throws {
        let scenario = try football(activities: 900)
        let parameters = BudgetParameters(burst: 2, perHour: 1, lowPriorityIntervalSeconds: 30)
        let token = try BudgetSimulation(scenario: scenario, parameters: parameters, threads: 2).run().tally
        var broadcast = BudgetSimulation(
            scenario: scenario.delivered(by: .broadcast),
            parameters: parameters,
            threads: 1
        )
        let one = try broadcast.run().tally
        broadcast.threads = 3
        let three = try broadcast.run().tally
        XCTAssertEqual(one.outcomes, token.outcomes)
        XCTAssertEqual(one.minutes, token.minutes)
        XCTAssertEqual(one.lagMs, token.lagMs)
        XCTAssertGreaterThan(one.count(.throttled), 0, "a budget of 2 runs out in a match")
        XCTAssertEqual(token.senderPushes, token.pushes)
        XCTAssertEqual(token.broadcasts, 0)
        let steps = (token.pushes - 900) / 900
        XCTAssertEqual(one.broadcasts, steps)
        XCTAssertEqual(one.broadcastDeliveries, steps * 900)
        XCTAssertEqual(one.senderPushes, 900 + steps)
        for figure in [\BudgetTally.broadcasts, \.broadcastDeliveries, \.senderPushes, \.endsNotShown] {
            XCTAssertEqual(one[keyPath: figure], three[keyPath: figure])
        }
        XCTAssertEqual(one.outcomes, three.outcomes)
    }

    func testLiveCountsOfShortActivitiesOverADayMatchABruteForceCount() throws {
        // Deliveries start over 12 hours and last under an hour: the census skips the dead and
        // the not yet begun, and must still count exactly the live ones.
        let scenario = try Scenario.builtIn(named: "delivery").scaled(toActivities: 400)
        let tally = try BudgetSimulation(scenario: scenario, parameters: BudgetParameters(), threads: 2, sampleEvery: 1)
            .run().tally
        var lives: [Range<Int64>] = []
        var first: [Int: Int64] = [:]
        for event in try ScenarioStream(scenario) {
            if first[event.activity] == nil { first[event.activity] = event.timeMs }
            if event.phase == .end { lives.append(first[event.activity]!..<event.timeMs) }
        }
        XCTAssertEqual(lives.count, 400)
        for (minute, row) in tally.minutes.enumerated() {
            let end = Int64(minute + 1) * 60_000
            XCTAssertEqual(
                row.live,
                lives.filter { $0.lowerBound <= end && end < $0.upperBound }.count,
                "minute \(minute)"
            )
        }
    }

    func testManyActivitiesPerDeviceExhaustThePushToStartBucket() throws {
        let scenario = try football(activities: 200)
        let result = try BudgetSimulation(
            scenario: scenario,
            parameters: BudgetParameters(startBurst: 10, startPerHour: 1),
            activitiesPerDevice: 20
        ).run()
        // Each device starts 20 activities within 30 minutes: 10 start, about 10 do not.
        XCTAssertGreaterThanOrEqual(result.tally.activitiesNotStarted, 90)
        XCTAssertLessThanOrEqual(result.tally.activitiesNotStarted, 100)
        XCTAssertEqual(result.tally.count(.startThrottled), result.tally.activitiesNotStarted)
        XCTAssertGreaterThan(result.tally.count(.notStarted), 0)
    }

    func testInvalidParametersAreNamed() throws {
        let simulation = BudgetSimulation(
            scenario: try football(activities: 10),
            parameters: BudgetParameters(burst: 0)
        )
        XCTAssertThrowsError(try simulation.run()) { error in
            XCTAssertEqual("\(error)", "burst must be a positive number, not 0.0")
        }
    }
}
