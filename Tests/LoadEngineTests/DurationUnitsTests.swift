import Basics
import Transport
import XCTest

/// `Duration`, the one time type inside, turned into the units at the edges and the hot path's
/// nanoseconds.
final class DurationUnitsTests: XCTestCase {
    func testEachUnitIsExactAndTheEdgesSaturate() {
        XCTAssertEqual(Duration.milliseconds(250).inNanoseconds, 250_000_000)
        XCTAssertEqual(Duration.microseconds(100).inNanoseconds, 100_000)
        XCTAssertEqual(Duration.seconds(-1).inNanoseconds, 0)
        XCTAssertEqual(Duration.seconds(Int64.max).inNanoseconds, .max)
        XCTAssertEqual(Duration.microseconds(1500).inMilliseconds, 1)
        XCTAssertEqual(Duration.seconds(10).inMilliseconds, 10_000)
        XCTAssertEqual(Duration.seconds(-1).inMilliseconds, -1000)
        XCTAssertEqual(Duration.seconds(Int64.max).inMilliseconds, .max)
        XCTAssertEqual(Duration.milliseconds(1500).inSeconds, 1.5)
        XCTAssertEqual(Duration.nanoseconds(1).inSeconds, 1e-9, accuracy: 1e-18)
    }
}
