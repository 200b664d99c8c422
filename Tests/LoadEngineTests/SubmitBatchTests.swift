import Basics
import Transport
import XCTest

@testable import LoadEngine

/// When a closed-loop worker holds new pushes for a batch of free streams, and when it does not.
final class SubmitBatchTests: XCTestCase {
    func testABatchIsAnEighthOfTheStreamsInClosedLoopAndOneOtherwise() {
        XCTAssertEqual(SubmitBatch(streams: 100, closedLoop: true).size, 12)
        XCTAssertEqual(SubmitBatch(streams: 800, closedLoop: true).size, 100)
        XCTAssertEqual(SubmitBatch(streams: 8, closedLoop: true).size, 1, "too few streams to batch")
        XCTAssertEqual(SubmitBatch(streams: 100, closedLoop: false).size, 1, "open loop sends on time")
    }

    func testFewFreeStreamsAreHeldUntilABatchIsFreeOrTheHoldEnds() {
        var batch = SubmitBatch(streams: 100, closedLoop: true)
        XCTAssertTrue(batch.holds(now: 1_000, idleSlots: 3, inFlight: 97, pushesLeft: 1_000))
        XCTAssertEqual(batch.holdEnds, 1_000 + SubmitBatch.defaultHold.inNanoseconds)
        XCTAssertTrue(batch.holds(now: 50_000, idleSlots: 7, inFlight: 93, pushesLeft: 1_000), "the same hold")
        XCTAssertEqual(batch.holdEnds, 1_000 + SubmitBatch.defaultHold.inNanoseconds, "it does not restart")
        XCTAssertFalse(batch.holds(now: 60_000, idleSlots: 12, inFlight: 88, pushesLeft: 1_000), "a batch is free")
        XCTAssertNil(batch.holdEnds)

        XCTAssertTrue(batch.holds(now: 200_000, idleSlots: 2, inFlight: 98, pushesLeft: 1_000))
        XCTAssertFalse(
            batch.holds(
                now: 200_000 + SubmitBatch.defaultHold.inNanoseconds,
                idleSlots: 2,
                inFlight: 98,
                pushesLeft: 1_000
            ),
            "the hold is over: two go"
        )
    }

    func testNothingIsHeldWithNothingInFlightOrWhenTheLastPushesAreFewerThanABatch() {
        var batch = SubmitBatch(streams: 100, closedLoop: true)
        XCTAssertFalse(batch.holds(now: 0, idleSlots: 3, inFlight: 0, pushesLeft: 1_000), "no answer would come")
        XCTAssertFalse(batch.holds(now: 0, idleSlots: 3, inFlight: 97, pushesLeft: 3), "the last three go")
        XCTAssertFalse(batch.holds(now: 0, idleSlots: 0, inFlight: 100, pushesLeft: 0), "nothing left to send")
        XCTAssertFalse(batch.holds(now: 0, idleSlots: 0, inFlight: 100, pushesLeft: 1_000), "no stream free yet")
        XCTAssertNil(batch.holdEnds, "the hold starts with the first free stream")
        var unbatched = SubmitBatch(streams: 100, closedLoop: false)
        XCTAssertFalse(unbatched.holds(now: 0, idleSlots: 1, inFlight: 99, pushesLeft: 1_000))
    }
}
