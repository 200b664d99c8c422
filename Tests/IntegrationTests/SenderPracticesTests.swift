import Foundation
import Reports
import TestSupport
import Workload
import XCTest

@testable import SenderDoctor

/// The doctor's checks that no engine practice reproduces, on hand-made traffic whose mistakes
/// are known; and how findings are ranked and written.
final class SenderPracticesTests: XCTestCase {
    /// A careful Live Activity update to `token` at `ms`.
    private func update(_ ms: Int64, _ token: String, bytes: Int = 200) -> TrafficRecord {
        TrafficRecord(
            receivedMs: ms,
            connection: 1,
            deviceToken: token,
            pushType: "liveactivity",
            priority: 5,
            expiration: String(ms / 1000 + 3600),
            payloadBytes: bytes,
            event: .update,
            timestampSeconds: ms / 1000,
            staleDateSeconds: ms / 1000 + 900,
            providerToken: "a1",
            issuedAtSeconds: 1_000,
            streamsOpen: 4
        )
    }

    private func assert(_ text: String, startsWith prefix: String, line: UInt = #line) {
        XCTAssertTrue(text.hasPrefix(prefix), text, line: line)
    }

    private var careful: [TrafficRecord] { (0..<40).map { update(1_000_000 + Int64($0) * 10, "t\($0 % 8)") } }

    func testCarefulTrafficHasNoFinding() {
        let doctor = SenderPractices(records: careful, streamsAdvertised: 1000)
        XCTAssertEqual(doctor.findings, [])
        XCTAssertEqual(doctor.verdict, "no costly practice found in 40 pushes")
    }

    /// 300 pushes a second on 3 connections at 3 streams each, against answers held 20 ms: 450
    /// a second is all that concurrency allows, so it is the cap, and the finding says so with
    /// its arithmetic. With answers at once, or streams near the server's limit, it says nothing.
    func testASenderCappedByItsOwnConcurrencyIsNamedWithTheArithmetic() throws {
        let capped = (0..<900).map { index in
            var record = update(1_000_000 + Int64(index) * 10 / 3, "t\(index % 30)")
            record.connection = index % 3
            record.streamsOpen = 1 + index % 3
            return record
        }
        let doctor = SenderPractices(records: capped, streamsAdvertised: 1000, answerDelayMs: 20)
        let finding = try XCTUnwrap(doctor.findings.first { $0.practice == "concurrency-capped" }, "\(doctor.findings)")
        XCTAssertEqual(doctor.findings.first, finding, "every push is capped: it ranks first")
        assert(
            finding.evidence,
            startsWith: "300 pushes/s, 67% of the 450 pushes/s that 3 streams in flight a connection (p90) × "
                + "3 connections ÷ 20.0 ms an answer allow; at most 3 of the 1,000 streams"
        )
        XCTAssertTrue(finding.cost.contains("at 40 ms to APNs these connections carry 225 pushes/s"), finding.cost)
        XCTAssertEqual(doctor.figures.streamsInFlightP90, 3)
        let atOnce = SenderPractices(records: capped, streamsAdvertised: 1000)
        XCTAssertFalse(atOnce.findings.contains { $0.practice == "concurrency-capped" }, "no delay, no cap to show")
        let wide = SenderPractices(records: capped, streamsAdvertised: 20, answerDelayMs: 20)
        XCTAssertFalse(wide.findings.contains { $0.practice == "concurrency-capped" }, "near the server's limit")
        let slower = SenderPractices(records: capped, streamsAdvertised: 1000, answerDelayMs: 5)
        XCTAssertFalse(slower.findings.contains { $0.practice == "concurrency-capped" }, "far below its cap")
    }

    /// A scheduler that wakes every 2 s and sends 20 pushes one at a time, 40 ms apart (one in
    /// flight, answered after 40 ms): its ceiling is 20 ÷ 2 s, and its cap is judged on its rate
    /// while busy (25/s, all one push in flight allows), which its idle gaps dilute to 11/s.
    func testABatchSchedulerIsNamedWithItsCeilingAndJudgedWhileBusy() throws {
        let batches = (0..<100).map { index in
            var record = update(1_000_000 + Int64(index / 20) * 2000 + Int64(index % 20) * 40, "t\(index % 30)")
            record.streamsOpen = 1
            return record
        }
        let doctor = SenderPractices(records: batches, streamsAdvertised: 1000, answerDelayMs: 40)
        let batch = try XCTUnwrap(doctor.findings.first { $0.practice == "batch-pattern" }, "\(doctor.findings)")
        assert(
            batch.evidence,
            startsWith: "5 bursts of 20 pushes (median) every 2.00 s (median), busy 46% of the time at 25 pushes/s "
                + "while busy, with 1 pushes in flight at p50 and 1 at p90"
        )
        assert(batch.cost, startsWith: "its ceiling is 20 ÷ 2.00 s = 10.0 pushes/s")
        XCTAssertEqual(doctor.figures.bursts, 5)
        XCTAssertEqual(doctor.figures.burstPeriodSeconds, 2)
        XCTAssertEqual(try XCTUnwrap(doctor.figures.busyRatePerSecond), 25, accuracy: 0.01)
        let capped = try XCTUnwrap(doctor.findings.first { $0.practice == "concurrency-capped" }, "\(doctor.findings)")
        XCTAssertTrue(
            capped.evidence.hasPrefix("25 pushes/s while busy, 100% of the 25 pushes/s that 1 streams"),
            capped.evidence
        )
        let steady = (0..<100).map { index in
            var record = update(1_000_000 + Int64(index) * 40, "t\(index % 30)")
            record.streamsOpen = 1
            return record
        }
        let continuous = SenderPractices(records: steady, streamsAdvertised: 1000, answerDelayMs: 40)
        XCTAssertFalse(continuous.findings.contains { $0.practice == "batch-pattern" }, "no idle gap, no batches")
        XCTAssertNil(continuous.figures.bursts)
    }

    /// The pushes in flight are summed over the connections that carried one in the last
    /// second: a connection gone quiet holds none.
    func testPushesInFlightAreSummedOverTheConnectionsStillCarryingPushes() {
        let records = [(0, 1, 2), (10, 2, 3), (20, 1, 1), (3000, 3, 4)].map { ms, connection, open in
            var record = update(1_000_000 + Int64(ms), "t1")
            record.connection = connection
            record.streamsOpen = open
            return record
        }
        XCTAssertEqual(SenderPractices.inFlight(TrafficTable(records)), [2, 5, 4, 4])
    }

    func testContentMistakesAreNamedAndRankedByPushesAffected() throws {
        var records = careful
        for index in 0..<3 { records[index].expiration = "" }
        for index in 10..<16 { records[index].staleDateSeconds = nil }
        records[20].payloadBytes = 3_900
        // t1 is answered 410 at its second push; its later pushes are to a gone token.
        records[9].status = 410
        records[9].reason = "Unregistered"
        let doctor = SenderPractices(records: records, streamsAdvertised: 1000)
        XCTAssertEqual(
            doctor.findings.map(\.practice),
            ["stale-date", "gone-tokens", "missing-expiration", "payload-near-limit"]
        )
        XCTAssertEqual(doctor.findings.map(\.pushesAffected), [6, 3, 3, 1])
        XCTAssertEqual(doctor.figures.pushesToGoneTokens, 3)
        XCTAssertTrue(doctor.findings[3].evidence.contains("3,900 bytes"), doctor.findings[3].evidence)
    }

    /// Every update at priority 10: the cost is the caller's budget figure when it modelled one,
    /// the recording's own replay when it did not say, and no model at all when it was asked
    /// not to model the budget (`--no-budget`): then every urgent update is at risk.
    func testTheBudgetFigureComesFromWhereTheCallerSays() throws {
        // 300 updates to 3 tokens, 600 ms apart on each: more than a budget lets through.
        let urgent = (0..<300).map { index in
            var record = update(1_000_000 + Int64(index) * 200, "t\(index % 3)")
            record.priority = 10
            return record
        }
        func finding(_ budget: SenderPractices.BudgetSource) throws -> SenderPractices.Finding {
            let doctor = SenderPractices(records: urgent, streamsAdvertised: 1000, budget: budget)
            return try XCTUnwrap(doctor.findings.first { $0.practice == "all-priority-10" }, "\(doctor.findings)")
        }
        let modelled = try finding(.modelled(throttledUpdates: 120, model: "community preset"))
        XCTAssertTrue(modelled.cost.hasPrefix("the budget model (community preset) drops 120 (40.0%)"), modelled.cost)
        XCTAssertEqual(modelled.pushesAffected, 120)
        let replayed = try finding(.replay)
        XCTAssertTrue(replayed.cost.hasPrefix("the budget model (default parameters, the recording's clock) drops "))
        XCTAssertGreaterThan(replayed.pushesAffected, 1, "the replay drops some of 100 urgent updates a token")
        let notModelled = try finding(.notModelled)
        XCTAssertTrue(notModelled.cost.hasPrefix("the budget was not modelled"), notModelled.cost)
        XCTAssertEqual(notModelled.pushesAffected, 300)
    }

    /// What the devices a lifecycle profile plays dropped is named as the mistakes behind it,
    /// each cause under its pattern, ranked with the rest.
    func testPushesTheDevicesDroppedAreNamedByThePatternBehindThem() {
        let practices = SenderPractices(
            records: [],
            streamsAdvertised: 1000,
            deviceDrops: [
                "after_end_or_dismissal": 40, "stale_push_to_start_token": 3, "undecodable_start": 2, "rotated_out": 0,
            ]
        )
        XCTAssertEqual(
            practices.findings.map(\.practice),
            ["updates-after-end", "stale-start-tokens", "unusable-starts"]
        )
        XCTAssertEqual(practices.findings.first?.evidence, "40 pushes the devices dropped (after_end_or_dismissal: 40)")
        XCTAssertEqual(practices.figures.deviceDrops["stale_push_to_start_token"], 3)
        XCTAssertTrue(SenderPractices(records: [], streamsAdvertised: 1000).findings.isEmpty)
    }

    func testTheFilesCarryTheFindings() throws {
        var records = careful
        records[0].expiration = ""
        var report = TrafficReport(records: records, source: "hand-made")
        report.practices = SenderPractices(records: records, streamsAdvertised: 1000)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let page = try String(contentsOfFile: try report.write(to: directory.path), encoding: .utf8)
        XCTAssertTrue(page.contains("<h2>Sender practices</h2>"), page)
        XCTAssertTrue(page.contains("missing-expiration"), page)
        let json = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: directory.file("practices.json")))
        )
        let document = try XCTUnwrap(json as? [String: Any])
        let findings = try XCTUnwrap(document["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.map { $0["practice"] as? String }, ["missing-expiration"])
        XCTAssertEqual(findings.first?["pushes_affected"] as? Int, 1)
        let figures = try XCTUnwrap(document["figures"] as? [String: Any])
        XCTAssertEqual(figures["missing_expiration"] as? Int, 1)
    }

    func testARecordingFromBeforeTheDoctorsColumnsStillReads() throws {
        let old = "1000,7,ab,liveactivity,com.x.push-type.liveactivity,10,,,120,200,,update,1,,"
        let record = try TrafficRecord(csvLine: Substring(old))
        XCTAssertEqual(record.deviceToken, "ab")
        XCTAssertEqual(record.providerToken, "")
        XCTAssertNil(record.streamsOpen)
        let line = update(5_000, "cd").csvLine
        XCTAssertEqual(try TrafficRecord(csvLine: Substring(line)), update(5_000, "cd"))
    }
}
