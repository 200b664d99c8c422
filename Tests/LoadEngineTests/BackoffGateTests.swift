import Transport
import Workload
import XCTest

@testable import LoadEngine

/// The reconnect backoff's bookkeeping on its own: which failure a hold is blamed on.
final class BackoffGateTests: XCTestCase {
    /// A GOAWAY starts the hold; the connection closing right after it fails the requests still
    /// open as lost, within the hold. The pushes the hold keeps back must name the GOAWAY, the
    /// cause, not the lost connection, its consequence.
    func testAHoldIsBlamedOnTheFailureThatStartedItNotOnTheOnesWithinIt() {
        var gate = BackoffGate(policy: .standard)
        var random = SplitMix64(seed: 1)
        XCTAssertTrue(gate.failed(.goaway, message: "GOAWAY NO_ERROR", now: 1_000, random: &random))
        XCTAssertFalse(gate.failed(.connectionLost, message: "closed", now: 2_000, random: &random))
        XCTAssertEqual(gate.holdCause?.kind, .goaway)
        XCTAssertEqual(gate.holdCause?.message, "GOAWAY NO_ERROR")

        // The probe after the hold fails in its own way: the next hold is blamed on that.
        let afterHold = gate.holdUntil + 1
        XCTAssertTrue(gate.failed(.connectRefused, message: "refused", now: afterHold, random: &random))
        XCTAssertEqual(gate.holdCause?.kind, .connectRefused)
    }

    /// A failure that follows answers reconnects at once: no hold, so nothing is blamed on it.
    func testAFailureAfterAnswersStartsNoHold() {
        var gate = BackoffGate(policy: .standard)
        var random = SplitMix64(seed: 1)
        gate.answered()
        XCTAssertFalse(gate.failed(.goaway, message: "GOAWAY", now: 1_000, random: &random))
        XCTAssertNil(gate.holdCause)
        XCTAssertFalse(gate.blocks(now: 1_000, inFlight: 0))
    }
}
