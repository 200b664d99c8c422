import Foundation
import Harness
import MockAPNs
import TestSupport
import Workload
import XCTest

/// What a mock reports when it stops, read in process: its lines, and the traffic report and
/// sender doctor written from its recording.
final class MockStopReportTests: XCTestCase {
    func testTheStopLinesSayOnlyWhatHappened() {
        var stats = MockStats().snapshot()
        stats.pushes = 3
        stats.accepted = 2
        stats.connectionsAccepted = 1
        XCTAssertEqual(MockStopReport.lines(stats), ["stopped: 3 pushes answered, 2 accepted, 1 connections"])

        stats.connectionsWithoutALPN = 1
        stats.acceptedIrregular = ["iat_string": 2]
        XCTAssertEqual(
            MockStopReport.lines(stats),
            [
                "stopped: 3 pushes answered, 2 accepted, 1 connections",
                "served HTTP/2 by prior knowledge to 1 connections that offered no ALPN, as APNs does",
                "accepted although irregular (docs/mock-conformance.md): iat_string 2",
            ]
        )
    }

    /// A recording of pushes that each came with a new provider token: the report is written
    /// beside the recording and the doctor names the practice.
    func testTheTrafficReportNamesWhatTheSenderDid() throws {
        let folder = NSTemporaryDirectory() + "pushbench-stop-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let records = (0..<30).map { index in
            TrafficRecord(
                receivedMs: 1_000_000 + Int64(index) * 10,
                connection: 1,
                deviceToken: "t\(index % 5)",
                pushType: "liveactivity",
                priority: 5,
                expiration: "2000",
                payloadBytes: 200,
                event: .update,
                timestampSeconds: 1_000,
                staleDateSeconds: 1_900,
                providerToken: "token-\(index)",
                issuedAtSeconds: 1_000,
                streamsOpen: 4
            )
        }
        let recording = folder + "/traffic.csv"
        try Data(([TrafficRecord.header] + records.map(\.csvLine)).map { $0 + "\n" }.joined().utf8)
            .write(to: URL(fileURLWithPath: recording))
        var stats = MockStats().snapshot()
        stats.pushes = 30
        stats.accepted = 30
        stats.connectionsAccepted = 1

        let written = try MockStopReport.writeTraffic(of: recording, stats: stats, streamsAdvertised: 1000, to: folder)
        XCTAssertTrue(FileManager.default.fileExists(atPath: written.page), written.page)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/practices.json"))
        XCTAssertTrue(written.practices.verdict.contains("token-per-push"), written.practices.verdict)
    }
}
