import Foundation
import Reports
import SenderDoctor
import TestSupport
import Workload
import XCTest

/// The server's view of recorded traffic, from hand-made records whose figures are known.
final class TrafficReportTests: XCTestCase {
    private func record(
        _ ms: Int64,
        _ token: String,
        priority: Int = 10,
        status: Int = 200,
        reason: String = ""
    )
        -> TrafficRecord
    {
        TrafficRecord(
            receivedMs: ms,
            connection: token == "b" ? 2 : 1,
            deviceToken: token,
            pushType: "liveactivity",
            priority: priority,
            status: status,
            reason: reason,
            event: .update,
            timestampSeconds: ms / 1000
        )
    }

    private lazy var report = TrafficReport(
        records: [
            record(1_000, "a"), record(1_500, "b", priority: 5), record(3_000, "a"),
            record(3_100, "b", status: 410, reason: "Unregistered"), record(4_000, "a", priority: 5),
        ],
        source: "hand-made"
    )

    func testTheFiguresOfAKnownRecording() {
        XCTAssertEqual(report.records.count, 5)
        XCTAssertEqual(report.accepted, 4)
        XCTAssertEqual(report.tokens, 2)
        XCTAssertEqual(report.connections, 2)
        XCTAssertEqual(report.durationSeconds, 3)
        XCTAssertEqual(report.seconds.map(\.pushes), [2, 0, 2, 1])
        XCTAssertEqual(report.seconds.map(\.refused), [0, 0, 1, 0])
        XCTAssertEqual(report.seconds.map(\.priority5), [1, 0, 0, 1])
        XCTAssertEqual(report.priorityMix.map(\.pushes), [3, 2])
        XCTAssertEqual(report.refusals.map(\.reason), ["Unregistered"])
        // Gaps: a 2.0 s and 1.0 s, b 1.6 s; pushes per token 3 and 2.
        let cadence = report.cadence
        XCTAssertEqual(TrafficReport.cadencePercentiles, [0, 10, 50, 90, 99, 100])
        XCTAssertEqual(cadence.gapSeconds, [1, 1, 1.6, 2, 2, 2])
        XCTAssertEqual(cadence.pushesPerToken, [2, 2, 2, 3, 3, 3])
        // Over 3 s (1/1200 h): a sent 2 at priority 10, b 1.
        XCTAssertEqual(cadence.priority10PerHour.last ?? 0, 2400, accuracy: 0.001)
    }

    func testTheFilesSayTheSame() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let html = try report.write(to: directory.file("report"))
        let arrivals = try String(contentsOfFile: directory.file("report/arrivals.csv"), encoding: .utf8)
        XCTAssertTrue(arrivals.hasPrefix("second_s,pushes_per_s,accepted_per_s,refused_per_s,"), arrivals)
        XCTAssertTrue(arrivals.contains("\r\n2,2,1,1,2,0,0\r\n"), arrivals)
        let refusals = try String(contentsOfFile: directory.file("report/refusals.csv"), encoding: .utf8)
        XCTAssertEqual(refusals, "status,reason,pushes,share_percent\r\n410,Unregistered,1,20.00\r\n")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        XCTAssertTrue(page.contains("<svg"), "the arrivals chart is inline SVG")
        XCTAssertFalse(page.contains("http://") || page.contains("https://"), "nothing is fetched")
    }
}
