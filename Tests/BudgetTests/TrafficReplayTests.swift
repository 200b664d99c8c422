import Budget
import Foundation
import Workload
import XCTest

/// Recorded traffic through the model: starts on one device, activities by token, other push
/// types skipped.
final class TrafficReplayTests: XCTestCase {
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
            "1000000,aa,liveactivity,10,start,1000",
            "1000100,aa,liveactivity,10,start,1000",
            "1000200,aa,liveactivity,10,start,1000",
            "1000300,bb,liveactivity,5,update,1000",
            "1000400,bb,liveactivity,5,update,1000",
            "1000500,cc,alert,10,,",
            "1031000,bb,liveactivity,10,end,1031",
        ])
        XCTAssertEqual(traffic.records.count, 6)
        XCTAssertEqual(traffic.skipped, 1)
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

    func testAFileWithoutTheHeaderIsRefused() throws {
        let path = NSTemporaryDirectory() + "not-traffic-\(UUID().uuidString).csv"
        try "a,b,c\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try TrafficReplay(path: path)) { error in
            XCTAssertTrue("\(error)".contains("is not a traffic file"), "\(error)")
        }
    }
}
