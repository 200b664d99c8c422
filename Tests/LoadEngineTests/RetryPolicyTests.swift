import Transport
import Workload
import XCTest

@testable import LoadEngine

/// Which answers are retried, how long each retry waits, and in what order they leave.
final class RetryPolicyTests: XCTestCase {
    func testOnlyThrottlingServerErrorsAndTransportFailuresAreRetried() {
        XCTAssertTrue(RetryPolicy.isRetryable(.response(status: 429, body: [])))
        XCTAssertTrue(RetryPolicy.isRetryable(.response(status: 503, body: [])))
        XCTAssertTrue(RetryPolicy.isRetryable(.failed(.connectRefused, message: "refused")))
        XCTAssertFalse(RetryPolicy.isRetryable(.response(status: 410, body: [])))
        XCTAssertFalse(RetryPolicy.isRetryable(.response(status: 200, body: [])))
        XCTAssertFalse(RetryPolicy.isRetryable(.timedOut), "a timed-out push may have arrived")
    }

    func testBackoffDoublesWithJitterAndRetryAfterWins() {
        let policy = RetryPolicy(maxRetries: 5, base: .milliseconds(100), cap: .seconds(1))
        var random = SplitMix64(seed: 3)
        for attempt in 1...5 {
            let bound = min(1, 0.1 * Double(1 << (attempt - 1))) * 1e9
            let delays = (0..<200).map { _ in
                Double(policy.delayNanos(attempt: attempt, retryAfterSeconds: nil, random: &random))
            }
            XCTAssertLessThan(delays.max()!, bound)
            XCTAssertGreaterThan(delays.max()!, bound * 0.8, "full jitter reaches near the bound")
        }
        XCTAssertEqual(policy.delayNanos(attempt: 1, retryAfterSeconds: 0, random: &random), 0)
        XCTAssertEqual(policy.delayNanos(attempt: 1, retryAfterSeconds: 30, random: &random), 1_000_000_000, "capped")
    }

    func testTheQueueHandsRetriesOutWhenDueEarliestFirst() throws {
        var stream = try ScenarioStream(Scenario.builtIn(named: "football").scaled(toActivities: 3))
        let event = try XCTUnwrap(stream.next())
        var queue = RetryQueue()
        for due in [500, 100, 300, 200, 400] as [UInt64] {
            let identity = PushIdentity(apnsID: (due, due), preparedAt: 0)
            queue.add(
                RetryQueue.Entry(dueNanos: due, event: event, sequence: 0, attempt: Int(due / 100), identity: identity)
            )
        }
        XCTAssertNil(queue.popDue(now: 50))
        var order: [Int] = []
        while let next = queue.popDue(now: 1000) { order.append(next.attempt) }
        XCTAssertEqual(order, [1, 2, 3, 4, 5])
        XCTAssertTrue(queue.isEmpty)
    }
}
