import Encodings
import Foundation
import Workload
import XCTest

/// The table the reports read recordings through: every field of every record comes back as it
/// went in, in arrival order, and a file is read a block at a time without losing a line.
final class TrafficTableTests: XCTestCase {
    /// A record with every field set, or every optional one empty, varied by `index`.
    private func record(_ index: Int, receivedMs: Int64, token: String) -> TrafficRecord {
        let full = index % 2 == 0
        return TrafficRecord(
            receivedMs: receivedMs,
            connection: 40_000 + index % 3,
            deviceToken: token,
            pushType: full ? "liveactivity" : "alert",
            topic: "com.example.app.push-type.liveactivity",
            priority: full ? 10 : 5,
            expiration: full ? "\(receivedMs / 1000 + 3600)" : "",
            collapseID: full ? "score,\"final\"" : "",
            payloadBytes: 100 + index,
            status: full ? 200 : 410,
            reason: full ? "" : "Unregistered",
            event: [LifecyclePhase.start, .update, .end, nil][index % 4],
            timestampSeconds: full ? receivedMs / 1000 : nil,
            staleDateSeconds: full ? receivedMs / 1000 + 60 : nil,
            dismissalDateSeconds: full ? receivedMs / 1000 + 120 : nil,
            providerToken: full ? FNV1a.hex("bearer \(index % 2)".utf8) : "",
            issuedAtSeconds: full ? receivedMs / 1000 - 5 : nil,
            streamsOpen: full ? index % 7 + 1 : nil,
            apnsID: full ? UUID().uuidString : "",
            payloadDigest: [FNV1a.hex("body \(index)".utf8), "", "not-a-digest", "000000000000000a"][index % 4],
            retryAfterSeconds: full ? nil : 30
        )
    }

    func testEveryFieldComesBackInArrivalOrder() {
        // Received out of order, with two pushes in the same millisecond kept in their given order.
        let times: [Int64] = [5_000, 1_000, 3_000, 3_000, 2_000, 4_000, 1_000, 6_000]
        let records = times.enumerated().map { index, ms in
            record(index, receivedMs: ms, token: String(repeating: "\(index % 3)", count: 64))
        }
        let table = TrafficTable(records)
        XCTAssertEqual(Array(table), records.inArrivalOrder())
        XCTAssertEqual(table.map(\.receivedMs), times.sorted())
        XCTAssertEqual(table.tokenCount, 3)
        for position in table.indices {
            for other in table.indices {
                XCTAssertEqual(
                    table.tokenNumber(at: position) == table.tokenNumber(at: other),
                    table[position].deviceToken == table[other].deviceToken
                )
            }
        }
    }

    func testAFileIsReadAcrossBlocksAsItWasWritten() throws {
        // Enough lines that the 1 MiB blocks end inside lines, and a last line without its newline.
        let records = (0..<8_000).map { index in
            record(index, receivedMs: 1_000_000 + Int64(index / 3), token: String(format: "%064x", index % 500))
        }
        let path = NSTemporaryDirectory() + "traffic-table-\(UUID().uuidString).csv"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = ([TrafficRecord.header] + records.map(\.csvLine)).joined(separator: "\r\n")
        XCTAssertGreaterThan(text.utf8.count, 1 << 20)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let table = try TrafficFile.table(path)
        XCTAssertEqual(Array(table), records)
        XCTAssertEqual(table.tokenCount, 500)
    }

    func testABadLineIsNamedByItsNumber() throws {
        let path = NSTemporaryDirectory() + "traffic-table-\(UUID().uuidString).csv"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let good = record(0, receivedMs: 1_000, token: "aa").csvLine
        try [TrafficRecord.header, good, "", good, "1,2,3"].joined(separator: "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TrafficFile.table(path)) { error in
            XCTAssertTrue("\(error)".hasSuffix("\(path):4: expected 21 fields, found 3"), "\(error)")
        }
        try "".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TrafficFile.table(path)) { error in
            XCTAssertTrue("\(error)".contains("is not a traffic file"), "\(error)")
        }
        XCTAssertThrowsError(try TrafficFile.table(path + ".absent")) { error in
            XCTAssertTrue("\(error)".contains("cannot read \(path).absent: No such file"), "\(error)")
        }
    }
}
