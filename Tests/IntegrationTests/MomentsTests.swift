import XCTest

@testable import ArrivalMatching

/// The book's moments: "before the start" comes before every time on the clock and "not yet"
/// after every one, whatever the time, so a token learned before the start is known to every
/// call and a call not yet sent owes nothing.
final class MomentsTests: XCTestCase {
    func testBeforeTheStartAndNotYetBracketEveryTime() {
        for time: Int64 in [.min, -1, 0, 1, .max] {
            XCTAssertLessThan(Moment.beforeTheStart, .at(time))
            XCTAssertLessThan(Moment.at(time), .notYet)
        }
        XCTAssertLessThan(Moment.at(-5), .at(3))
    }

    /// What is stored reads back as it was, and a time at either end of the clock stays a time
    /// (fails when the edges are read as "before the start" or "not yet").
    func testEachEntryReadsBackWhatWasStored() {
        var moments = Moments(count: 4, all: .notYet)
        XCTAssertEqual(moments[2], .notYet)
        XCTAssertNil(moments.time(of: 2))
        moments[0] = .beforeTheStart
        moments[1] = .at(42)
        moments[2] = .at(.max)
        moments[3] = .at(.min)
        XCTAssertEqual(moments[0], .beforeTheStart)
        XCTAssertNil(moments.time(of: 0))
        XCTAssertEqual(moments.time(of: 1), 42)
        XCTAssertEqual(moments.time(of: 2), .max - 1)
        XCTAssertEqual(moments.time(of: 3), .min + 1)
        XCTAssertTrue(Moments(count: 0, all: .notYet).isEmpty)
    }
}
