import XCTest

@testable import ProfileReports
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

    /// A registration storm of no length (every report answered while the starts ran) is named
    /// as absent, not as 0.0 µs over the reports it answered.
    func testAPhaseOfNoLengthIsNamedAsAbsent() throws {
        var lifecycle = try XCTUnwrap(try RunSummarySchemaTests.fullSummary().lifecycle)
        lifecycle.serviceCPUByPhaseS?["registration_storm"] = 0
        lifecycle.serviceCPUUsPer?["token_report"] = 0
        let line = try XCTUnwrap(ProfileHeadline.lifecycle(lifecycle, measured: true).first { $0.topic == "costs" })
        XCTAssertTrue(line.sentence.contains("no time in the registration storm (a phase of no length)"), line.sentence)
        XCTAssertFalse(line.sentence.contains("0.0 µs a token report"), line.sentence)
    }

    /// An activity ended before any update is named so: its end was the first push after its
    /// start, and it is not counted as updated.
    func testAnEndThatCameFirstIsNamedByItsKind() throws {
        var lifecycle = try XCTUnwrap(try RunSummarySchemaTests.fullSummary().lifecycle)
        lifecycle.activities.ended = 3
        lifecycle.activities.endWasFirstPush = 2
        let line = try XCTUnwrap(
            ProfileHeadline.lifecycle(lifecycle, measured: true).first { $0.topic == "first update" }
        )
        XCTAssertTrue(
            line.sentence.contains(
                "were ended by their end push (for 2 the end was the first push after the start: no update came before it)"
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

/// The first screen's figures say when they have no data, and keep a small rate's decimals.
final class ProfileHeadlineFigureTests: XCTestCase {
    func testNoArrivalsIsNoLagRatherThanZeroLate() throws {
        let lag = RunSummary.Lag(.latency(digits: .three), early: 0)
        let none = ProfileHeadline.lateness(
            lag,
            RunSummary.Events(total: 12, received: 0, missing: 12, extra: 0, duplicates: 0)
        )
        XCTAssertTrue(
            none.sentence.hasPrefix("No event arrived, so there is no lag against the schedule; 0 of 12"),
            none.sentence
        )
        XCTAssertFalse(none.sentence.contains("0.0 ms late"), none.sentence)
        let some = ProfileHeadline.lateness(
            lag,
            RunSummary.Events(total: 12, received: 12, missing: 0, extra: 0, duplicates: 0)
        )
        XCTAssertTrue(some.sentence.hasPrefix("Against its schedule, first arrivals were"), some.sentence)
    }

    func testARateBelowOneASecondKeepsItsDecimals() {
        XCTAssertEqual(ProfileHeadline.rate(0.3), "0.30")
        XCTAssertEqual(ProfileHeadline.rate(11.4), "11")
    }
}
