import Budget
import Foundation
import Workload
import XCTest

/// Recorded traffic through the model: starts on one device, activities by token, other push
/// types skipped.
final class TrafficReplayTests: XCTestCase {
    /// A traffic line: an accepted Live Activity push unless said otherwise.
    private func line(
        _ ms: Int64,
        _ token: String,
        priority: Int = 10,
        _ event: LifecyclePhase?,
        type: String = "liveactivity",
        status: Int = 200
    ) -> String {
        TrafficRecord(
            receivedMs: ms,
            deviceToken: token,
            pushType: type,
            priority: priority,
            status: status,
            reason: status == 200 ? "" : "BadTopic",
            event: event,
            timestampSeconds: event == nil ? nil : ms / 1000
        ).csvLine
    }

    private func replay(_ lines: [String]) throws -> TrafficReplay {
        let path = NSTemporaryDirectory() + "traffic-\(UUID().uuidString).csv"
        try ([TrafficRecord.header] + lines).joined(separator: "\n").write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try TrafficReplay(path: path)
    }

    func testStartsDrawOnTheirDeviceAndUpdatesBelongToTheirToken() throws {
        let traffic = try replay([
            line(1_000_000, "aa", .start),
            line(1_000_100, "aa", .start),
            line(1_000_200, "aa", .start),
            line(1_000_300, "bb", priority: 5, .update),
            line(1_000_400, "bb", priority: 5, .update),
            line(1_000_500, "cc", nil, type: "alert"),
            line(1_000_600, "dd", .update, status: 400),
            line(1_031_000, "bb", .end),
        ])
        XCTAssertEqual(traffic.records.count, 6)
        XCTAssertEqual(traffic.skipped, 2, "an alert and a rejected push")
        let result = try traffic.run(
            parameters: BudgetParameters(lowPriorityIntervalSeconds: 30, startBurst: 2, startPerHour: 1),
            sampleEvery: 1
        )
        let tally = result.tally
        XCTAssertEqual(result.activities, 4)
        // Two starts fit the device's bucket; the third does not.
        XCTAssertEqual(tally.count(.startThrottled), 1)
        // bb: the window [0.3 s, 30.3 s) shows the second update; the end at 31 s is shown.
        XCTAssertEqual(tally.count(.coalesced), 1)
        XCTAssertEqual(tally.count(.shown), 2 + 1 + 1)
        XCTAssertEqual(tally.pushes, 6)
        XCTAssertEqual(tally.minutes.count, 1)
    }

    func testARecordWithCommasInACollapseIDSurvivesTheRoundTrip() throws {
        let record = TrafficRecord(
            receivedMs: 5,
            connection: 61_000,
            deviceToken: "ab",
            pushType: "liveactivity",
            topic: "com.example.app.push-type.liveactivity",
            priority: 5,
            expiration: "0",
            collapseID: #"score,"final""#,
            payloadBytes: 120,
            status: 410,
            reason: "Unregistered",
            event: .end,
            timestampSeconds: 100,
            staleDateSeconds: 200,
            dismissalDateSeconds: 300
        )
        XCTAssertEqual(try TrafficRecord(csvLine: Substring(record.csvLine)), record)
    }

    func testAFileWithoutTheHeaderIsRefused() throws {
        let path = NSTemporaryDirectory() + "not-traffic-\(UUID().uuidString).csv"
        try "a,b,c\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try TrafficReplay(path: path)) { error in
            XCTAssertTrue("\(error)".contains("is not a traffic file"), "\(error)")
        }
    }
}
