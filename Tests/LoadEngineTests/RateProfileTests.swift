import XCTest

@testable import LoadEngine

/// Pushes follow the profile's shape: push k leaves when the rate's integral reaches k.
final class RateProfileTests: XCTestCase {
    func testAConstantRateSpacesPushesEvenly() throws {
        let profile = try RateProfile.constant(1000)
        XCTAssertEqual(profile.seconds(ofPush: 0), 0)
        XCTAssertEqual(try XCTUnwrap(profile.seconds(ofPush: 2500)), 2.5, accuracy: 1e-9)
        XCTAssertTrue(profile.isConstant)
        XCTAssertEqual(profile.label, "1000/s")
    }

    func testARampFollowsTheIntegralAndThenHolds() throws {
        let ramp = try RateProfile(parsing: "0:100,60s:2000")
        // By 60 s: (100 + 2000) / 2 × 60 = 63,000 pushes.
        XCTAssertEqual(try XCTUnwrap(ramp.seconds(ofPush: 63_000)), 60, accuracy: 1e-6)
        // At 30 s the rate is 1050/s, and 100·30 + (1900/60)·30²/2 = 17,250 pushes have been due.
        XCTAssertEqual(try XCTUnwrap(ramp.seconds(ofPush: 17_250)), 30, accuracy: 1e-6)
        // Then it holds 2000/s.
        XCTAssertEqual(try XCTUnwrap(ramp.seconds(ofPush: 63_000 + 4000)), 62, accuracy: 1e-6)
        XCTAssertEqual(ramp.label, "0 s 100/s → 60 s 2000/s")
    }

    func testStepsJumpAndAFinalZeroEndsTheRun() throws {
        let steps = try RateProfile(parsing: "0:500,30s:500,30s:1000,1m:1000,1m:0")
        XCTAssertEqual(try XCTUnwrap(steps.seconds(ofPush: 15_000)), 30, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(steps.seconds(ofPush: 15_000 + 500)), 30.5, accuracy: 1e-9)
        XCTAssertNotNil(steps.seconds(ofPush: 44_999))
        XCTAssertNil(steps.seconds(ofPush: 45_000), "15,000 + 30,000 pushes, then the rate is 0 for good")
    }

    func testAWorkersShareKeepsTheShape() throws {
        let half = try RateProfile(parsing: "0:100,10s:300").scaled(by: 0.5)
        XCTAssertEqual(half.points.map(\.perSecond), [50, 150])
        XCTAssertEqual(
            try XCTUnwrap(half.seconds(ofPush: 1000)),
            try XCTUnwrap(RateProfile(parsing: "0:100,10s:300").seconds(ofPush: 2000)),
            accuracy: 1e-9
        )
    }

    func testFilesAndMistakesReadAsExpected() throws {
        XCTAssertEqual(try RateProfile(parsing: "seconds,rate\n0,10\n5,20\n").points.count, 2)
        for bad in ["", "5s:100", "0:100,10s:-1", "0:0", "0:100,10s:50,5s:50", "0:abc", "0:1:2"] {
            XCTAssertThrowsError(try RateProfile(parsing: bad), bad)
        }
        // A time on the command line takes its unit, as every duration does; 0 needs none.
        XCTAssertThrowsError(try RateProfile(parsing: "0:100,60:2000")) { error in
            XCTAssertEqual("\(error)", "'60:2000': a time needs a unit, such as 60s:2000")
        }
        XCTAssertEqual(try RateProfile(parsing: "0:100,500ms:200,1m:300").points.map(\.seconds), [0, 0.5, 60])
    }
}
