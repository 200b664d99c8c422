import Budget
import Workload
import XCTest

/// Recommendations come from the model: checked against the bucket arithmetic by hand.
final class RecommendationTests: XCTestCase {
    func testSteadyRateIsWhatTheBucketCarries() {
        // The model's answer is tight: by direct arithmetic, that interval never throttles over
        // the hour and one second less does.
        let parameters = BudgetParameters(burst: 15, perHour: 15)
        let hour = SteadyRate.search(parameters: parameters, frequent: false, durationSeconds: 3600)
        XCTAssertEqual(hour.durationSeconds, 3600)
        XCTAssertTrue(Self.neverThrottles(parameters, interval: hour.intervalSeconds, duration: 3600))
        XCTAssertFalse(Self.neverThrottles(parameters, interval: hour.intervalSeconds - 1, duration: 3600))
        // Over 8 hours the refill dominates: close to 15 + 15/8 per hour.
        let day = SteadyRate.search(parameters: parameters, frequent: false, durationSeconds: 8 * 3600)
        XCTAssert((16...17.2).contains(day.perHour), "\(day.perHour) per hour")
        // Frequent updates multiply both numbers by 16.
        let frequent = SteadyRate.search(parameters: parameters, frequent: true, durationSeconds: 8 * 3600)
        XCTAssertEqual(frequent.perHour, day.perHour * 16, accuracy: day.perHour * 16 * 0.05)
    }

    /// Pushes every `interval` s from 0 to `duration`: does the bucket ever run dry? Direct
    /// arithmetic, independent of the model.
    private static func neverThrottles(_ parameters: BudgetParameters, interval: Int, duration: Int) -> Bool {
        var tokens = parameters.burst
        var last = 0
        for second in stride(from: 0, to: duration, by: interval) {
            tokens = min(parameters.burst, tokens + Double(second - last) * parameters.perHour / 3600)
            last = second
            guard tokens >= 1 - 1e-9 else { return false }
            tokens -= 1
        }
        return true
    }

    func testPolicySearchPutsKeyEventsAtTenWhenTheTargetIsShorterThanTheWindow() throws {
        let scenario = try Scenario.builtIn(named: "football").scaled(toActivities: 40)
        // A 5 s target against a 30 s low-priority window: goals, whistles must go at 10.
        let tight = try PriorityPolicySearch(
            scenario: scenario,
            parameters: BudgetParameters(burst: 15, perHour: 15, lowPriorityIntervalSeconds: 30),
            keyLagTargetSeconds: 5
        ).run()
        let recommended = try XCTUnwrap(tight.recommended)
        XCTAssertEqual(Set(recommended.kindsAt10), [.kickOff, .goal, .halfTime, .fullTime])
        XCTAssertGreaterThanOrEqual(recommended.keyShareWithinTarget, 0.99)
        XCTAssertEqual(recommended.throttledShare, 0)
        // A 60 s target is met by the low-priority window alone: nothing needs 10.
        let loose = try PriorityPolicySearch(
            scenario: scenario,
            parameters: BudgetParameters(lowPriorityIntervalSeconds: 30),
            keyLagTargetSeconds: 60
        ).run()
        XCTAssertEqual(loose.recommended?.kindsAt10, [])
        XCTAssertEqual(loose.tried, 1)
        // The scenario's own policy puts the same key events at 10.
        XCTAssertEqual(Set(loose.current.kindsAt10), [.kickOff, .goal, .halfTime, .fullTime])
    }

    func testPolicySearchSaysWhenNoPolicyMeetsTheTarget() throws {
        let scenario = try Scenario.builtIn(named: "delivery").scaled(toActivities: 20)
        // Every status change shown at once, with one priority-10 update per activity: impossible.
        let outcome = try PriorityPolicySearch(
            scenario: scenario,
            parameters: BudgetParameters(burst: 1, perHour: 0.01, lowPriorityIntervalSeconds: 30),
            keyLagTargetSeconds: 0,
            requiredShare: 1
        ).run()
        XCTAssertNil(outcome.recommended)
        XCTAssertEqual(outcome.tried, 8)
        XCTAssertLessThan(outcome.bestShare, 1)
        XCTAssertGreaterThan(outcome.bestShare, 0)
    }
}
