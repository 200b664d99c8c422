import Transport
import Wire
import XCTest

@testable import LoadEngine

final class RejectionCountsTests: XCTestCase {
    /// A documented reason, an undocumented one and an answer without a body are each counted
    /// under their own name, during the warmup and after it, and two workers' counts add up
    /// (fails when a reason is counted under another's slot, or an unnamed one is lost).
    func testRejectionsAreCountedByReasonAndAddUpAcrossWorkers() {
        func metrics(_ answers: [(status: Int, body: String)], warmup: Bool = false) -> RunMetrics {
            let timeline = RunTimeline(workers: 1)
            var metrics = RunMetrics(startNanos: warmup ? 1_000 : 0, timeline: timeline, worker: 0)
            for answer in answers {
                let isWarmup = metrics.recordSent(now: 10, intendedAt: 10)
                let completion = PushCompletion(
                    tag: 0,
                    intendedAt: 10,
                    outcome: .response(status: answer.status, body: Array(answer.body.utf8)),
                    apnsIDEchoed: true,
                    localPort: 1
                )
                metrics.record(completion, now: 20, warmup: isWarmup)
            }
            return metrics
        }
        let unregistered = (410, #"{"reason":"Unregistered","timestamp":1700000000000}"#)
        let undocumented = (400, #"{"reason":"SomethingNew"}"#)
        var first = metrics([unregistered, unregistered, (200, ""), (503, "")])
        let second = metrics([unregistered, undocumented, (400, #"{"reason":"BadDeviceToken"}"#)])
        first.add(second)
        XCTAssertEqual(
            first.rejectedByReason,
            ["Unregistered": 3, "BadDeviceToken": 1, "SomethingNew": 1, "HTTP 503": 1]
        )
        XCTAssertEqual(first.warmupRejectedByReason, [:])

        let warm = metrics([unregistered, (429, #"{"reason":"TooManyRequests"}"#)], warmup: true)
        XCTAssertEqual(warm.warmupRejectedByReason, ["Unregistered": 1, "TooManyRequests": 1])
        XCTAssertEqual(warm.rejectedByReason, [:])
    }

    /// Every reason's index names it back, so a fixed array indexed by reason loses none.
    func testEveryReasonsIndexNamesItBack() {
        for (place, reason) in APNsReason.allCases.enumerated() {
            XCTAssertEqual(reason.index, place)
            XCTAssertEqual(APNsReason(index: place), reason)
        }
    }
}
