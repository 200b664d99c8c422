import XCTest

@testable import LoadEngine

/// The boundary below which a worker's events have all ended moves only past events that have.
final class SettledEventsTests: XCTestCase {
    func testTheBoundaryWaitsForTheOldestOpenEvent() {
        var settled = SettledEvents()
        let numbers = (0..<5).map { _ in settled.take() }
        XCTAssertEqual(numbers, [0, 1, 2, 3, 4])
        settled.end(2)
        settled.end(1)
        XCTAssertEqual(settled.below, 0, "event 0 is still open")
        settled.end(0)
        XCTAssertEqual(settled.below, 3, "0, 1 and 2 have ended")
        settled.end(4)
        XCTAssertEqual(settled.below, 3)
        XCTAssertEqual(settled.take(), 5)
        settled.end(3)
        XCTAssertEqual(settled.below, 5, "5 is open")
    }
}
