import XCTest

@testable import Reports

/// The first screen's lines about the devices: each phase's cost over its own work, and an
/// emulation over its budget flagged, since it shares the machine with the service it measures.
final class LifecycleHeadlineTests: XCTestCase {
    private func costs(perEventUs: Double) throws -> RunHeadline.Line {
        var lifecycle = try XCTUnwrap(try RunSummarySchemaTests.fullSummary().lifecycle)
        lifecycle.emulation.cpuUsPerEvent = perEventUs
        return try XCTUnwrap(ProfileHeadline.lifecycle(lifecycle, measured: true).first { $0.topic == "costs" })
    }

    func testEachPhasesCostIsItsCPUOverItsOwnWork() throws {
        let line = try costs(perEventUs: 10)
        XCTAssertNil(line.good, "within budget: a figure, not a verdict")
        XCTAssertTrue(
            line.sentence.contains(
                "the service spent 0.50 s on the starts (5000.0 µs a start push), 1.50 s in the registration storm (15000.0 µs a token report), 2.00 s on updates and ends (10.0 µs an update or end push)"
            ),
            line.sentence
        )
    }

    func testAnEmulationOverItsBudgetIsFlagged() throws {
        let line = try costs(perEventUs: 37)
        XCTAssertEqual(line.good, false)
        XCTAssertTrue(line.sentence.contains("37.0 µs of its own CPU per device event"), line.sentence)
        XCTAssertTrue(line.sentence.contains("over its 20 µs budget"), line.sentence)
    }
}
