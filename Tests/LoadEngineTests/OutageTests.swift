import LoadEngine
import XCTest

final class OutageTests: XCTestCase {
    private func second(
        _ index: Int,
        succeeded: Int = 0,
        rejected: Int = 0,
        errored: Int = 0,
        timedOut: Int = 0
    )
        -> TimelineSample
    {
        var sample = TimelineSample(startSeconds: Double(index) * 0.1, intervalSeconds: 0.1)
        sample.counts.succeeded = succeeded
        sample.counts.rejected = rejected
        sample.counts.errored = errored
        sample.counts.timedOut = timedOut
        sample.counts.sent = succeeded + rejected + errored + timedOut
        return sample
    }

    func testAnOutageIsARunOfIntervalsWithEndingsButNoAnswer() {
        let timeline = [
            second(0, succeeded: 100),
            second(1, succeeded: 40, errored: 60),  // went down part of the way: answers still came
            second(2, errored: 100),
            second(3, errored: 20, timedOut: 80),
            second(4),  // nothing ended at all: not evidence either way
            second(5, errored: 100),
            second(6, succeeded: 10, errored: 90),
            second(7, rejected: 100),  // refusals are answers: the target was up
            second(8, timedOut: 5),
        ]
        let outages = Outage.spans(in: timeline)
        XCTAssertEqual(outages.map(\.errored), [120, 100, 0])
        XCTAssertEqual(outages.map(\.timedOut), [80, 0, 5])
        let bounds = outages.map { [$0.fromSeconds, $0.toSeconds] }
        for (found, expected) in zip(bounds, [[0.2, 0.4], [0.5, 0.6], [0.8, 0.9]]) {
            XCTAssertEqual(found[0], expected[0], accuracy: 1e-9)
            XCTAssertEqual(found[1], expected[1], accuracy: 1e-9)
        }
    }

    func testARunThatWasAlwaysAnsweredHasNone() {
        XCTAssertEqual(Outage.spans(in: (0..<5).map { second($0, succeeded: 10, rejected: 1) }), [])
        XCTAssertEqual(Outage.spans(in: []), [])
    }
}
