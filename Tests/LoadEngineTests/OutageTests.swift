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
        -> SecondSample
    {
        var sample = SecondSample(second: index)
        sample.counts.succeeded = succeeded
        sample.counts.rejected = rejected
        sample.counts.errored = errored
        sample.counts.timedOut = timedOut
        sample.counts.sent = succeeded + rejected + errored + timedOut
        return sample
    }

    func testAnOutageIsARunOfSecondsWithEndingsButNoAnswer() {
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
        XCTAssertEqual(
            Outage.spans(in: timeline),
            [
                Outage(fromSecond: 2, toSecond: 4, errored: 120, timedOut: 80),
                Outage(fromSecond: 5, toSecond: 6, errored: 100),
                Outage(fromSecond: 8, toSecond: 9, timedOut: 5),
            ]
        )
    }

    func testARunThatWasAlwaysAnsweredHasNone() {
        XCTAssertEqual(Outage.spans(in: (0..<5).map { second($0, succeeded: 10, rejected: 1) }), [])
        XCTAssertEqual(Outage.spans(in: []), [])
    }
}
