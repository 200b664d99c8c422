import Foundation
import TestSupport
import XCTest

/// PushBench's own clients never set the pace unnoticed: the Python service answers every event
/// call a second late, on as many connections as it is given, and sixty calls fall due within a
/// third of a second. Sized to the schedule, the operator's client sends them all at once and
/// the service's latency is its own second; held to two connections, the wait is PushBench's,
/// measured apart, named on the first screen, and a call that never left PushBench's queue is
/// `pushbench_queue_timeout`, never the service's timeout.
extension ProfileServiceTests {
    /// The requests the service says it received: its last line, `requests received: N`.
    private func requestsReceived(in folder: String?) throws -> Int {
        let log = try String(contentsOfFile: "\(try XCTUnwrap(folder))/sender.stderr.log", encoding: .utf8)
        return try XCTUnwrap(Int(try XCTUnwrap(log.firstMatch(of: /requests received: (\d+)/)?.1)), log)
    }

    private func slowService(
        _ options: [String]
    ) throws -> (
        output: ExternalProgram.Output, summary: [String: Any]?, folder: String?
    ) {
        try profile(
            schedule: ["--rate", "200"],
            options: ["--concurrent-calls", "--settle", "1s"] + options,
            serviceOptions: ["--answer-delay", "1"]
        )
    }

    func testCallsDueTogetherGetAConnectionEachAndTheServiceIsChargedOnlyItsOwnSecond() throws {
        let (output, summary, folder) = try slowService([])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let api = try section(summary, "api")
        assertAccounted(api, sent: 60)
        XCTAssertEqual(api["succeeded"] as? Int, 60, "\(api)")
        XCTAssertEqual(api["connections"] as? Int, 60, "one for every call due within one --timeout")
        XCTAssertGreaterThan(api["peak_in_flight"] as? Int ?? 0, 30, "\(api)")
        XCTAssertEqual(api["waited"] as? Int, 0, "no call waited for a connection: \(api)")
        let queued = try XCTUnwrap(api["queued_us"] as? [String: Int])
        XCTAssertLessThan(queued["max"] ?? .max, 1000, "\(queued)")
        let latency = try XCTUnwrap(api["latency_ms"] as? [String: Double])
        XCTAssertGreaterThanOrEqual(latency["p50"] ?? 0, 1000, "the service's own second: \(latency)")
        XCTAssertFalse(output.stdout.contains("\nclient  "), output.stdout)
        XCTAssertTrue(output.stdout.contains("The event API answered 60 of 60 calls"), output.stdout)
        XCTAssertGreaterThanOrEqual(try requestsReceived(in: folder), 60 + 300, "every call and registration")
    }

    func testTwoConnectionsAreNamedAsPushBenchsLimitAndItsQueueTimeoutsAreNeverTheServices() throws {
        let (output, summary, folder) = try slowService(["--api-connections", "2", "--timeout", "3s"])
        let api = try section(summary, "api")
        assertAccounted(api, sent: 60)
        XCTAssertEqual(api["connections"] as? Int, 2)
        XCTAssertEqual(api["peak_in_flight"] as? Int, 2)
        XCTAssertEqual(api["timed_out"] as? Int, 0, "the service answered each call it was sent within 3 s: \(api)")
        let queueTimeouts = try XCTUnwrap(
            (api["failed_by_class"] as? [String: Int])?["pushbench_queue_timeout"],
            "\(api)"
        )
        let succeeded = try XCTUnwrap(api["succeeded"] as? Int)
        XCTAssertEqual(succeeded + queueTimeouts, 60, "\(api)")
        XCTAssertGreaterThan(queueTimeouts, 40, "two at a time, a second each, against a 3 s deadline")
        let received = try requestsReceived(in: folder)
        XCTAssertEqual(received - 300, succeeded, "the service saw exactly the calls PushBench handed over")
        let latency = try XCTUnwrap(api["latency_ms"] as? [String: Double])
        XCTAssertEqual(latency["count"], Double(succeeded), "only calls the service saw have its latency")
        XCTAssertLessThan(latency["max"] ?? .infinity, 3000, "the queue kept out of the service's latency: \(latency)")
        let queued = try XCTUnwrap(api["queued_us"] as? [String: Int])
        XCTAssertGreaterThan(queued["p99"] ?? 0, 2_000_000, "\(queued)")
        let client = try XCTUnwrap(
            output.stdout.split(separator: "\n").first { $0.hasPrefix("client  ") },
            output.stdout
        )
        for words in [
            "PushBench's own client set the pace", "of 60 event calls waited for one of its 2 connections",
            "pushbench_queue_timeout", "--api-connections",
        ] {
            XCTAssertTrue(client.contains(words), "\(words): \(client)")
        }
    }

    /// Token reports held in PushBench's own queue until their deadline never reached the
    /// service: an activity never updated for one is `report_never_sent`, PushBench's, never
    /// `report_failed`, the service's (fails when a queue timeout is booked as a failed report).
    func testReportsHeldInPushBenchsQueueAreNeverChargedAsTheServicesFailures() throws {
        let (output, summary, _) = try lifecycle(
            calls: 2,
            options: ["--timeout", "3s", "--api-connections", "2"],
            serviceOptions: ["--stall-reports", "1"]
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let lifecycle = try section(summary, "lifecycle")
        let reports = try XCTUnwrap((lifecycle["storm"] as? [String: Any])?["reports"] as? [String: Any])
        assertAccounted(reports, sent: 300)
        let queued = (reports["failed_by_class"] as? [String: Int])?["pushbench_queue_timeout"] ?? 0
        XCTAssertGreaterThan(queued, 100, "two connections, a second a report, a 3 s deadline: \(reports)")
        let sentAndFailed = (reports["timed_out"] as? Int ?? 0) + (reports["failed"] as? Int ?? 0) - queued
        let activities = try XCTUnwrap(lifecycle["activities"] as? [String: Any])
        let causes = try XCTUnwrap(activities["never_updated_by_cause"] as? [String: Int], "\(activities)")
        XCTAssertGreaterThan(causes["report_never_sent"] ?? 0, 0, "\(causes)")
        XCTAssertLessThanOrEqual(causes["report_failed"] ?? 0, sentAndFailed, "only reports the service saw: \(causes)")
    }
}
