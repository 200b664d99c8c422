import Foundation
import TestSupport
import XCTest

/// The target dies mid-run (kill -9) and comes back on the same port: the engine reconnects,
/// every request in flight or sent meanwhile ends in exactly one outcome, and the report marks
/// the outage instead of averaging it away.
final class MockRestartTests: PushbenchTestCase {
    func testAKilledAndRestartedMockShowsAsAnOutageWithBalancedBooks() throws {
        // The restarted mock must present the certificate the sender trusts: a fixed one.
        let (certificate, key) = (directory.file("cert.pem"), directory.file("key.pem"))
        _ = try LoopbackCertificate(certificatePath: certificate, keyPath: key)
        let startMock = { [pushbench] (port: String) throws -> (RunningProgram, String) in
            let mock = try RunningProgram(
                pushbench,
                ["mock", "--port", port, "--tls-cert", certificate, "--tls-key", key]
            )
            let listening = try XCTUnwrap(mock.waitForLine(containing: "listening on https://"), mock.output)
            return (mock, String(try XCTUnwrap(listening.split(separator: " ").first { $0.hasPrefix("https://") })))
        }
        let (first, origin) = try startMock("0")
        let port = String(try XCTUnwrap(origin.split(separator: ":").last))

        let run = try RunningProgram(
            pushbench,
            [
                "run", "--endpoint", origin, "--ca-file", certificate, "--rate", "400", "--duration", "9s",
                "--activities", "200", "--connections", "2", "--no-budget", "--reports-dir", directory.path,
            ],
            captureStderr: true
        )
        XCTAssertNotNil(run.waitForLine(containing: "sending the football scenario's pushes"), run.output)
        Thread.sleep(forTimeInterval: 2.5)
        first.killAtOnce()
        _ = first.waitForExit()
        Thread.sleep(forTimeInterval: 2.5)
        let (second, _) = try startMock(port)
        XCTAssertEqual(run.waitForExit(timeout: 60), 0, run.output)
        second.interrupt()
        XCTAssertEqual(second.waitForExit(), 130)

        XCTAssertTrue(run.output.contains("the mock restarted during the run"), run.output)
        XCTAssertTrue(run.output.contains("outages"), run.output)
        let report = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasPrefix("2") }
        )
        let folder = directory.path + "/" + report
        let summary = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/summary.json")))
                as? [String: Any]
        )
        let counts = try XCTUnwrap(summary["counts"] as? [String: Int])
        XCTAssertEqual(summary["accounting_balanced"] as? Bool, true)
        XCTAssertEqual(summary["kind"] as? String, "run")
        // 9 s at 400 a second (the push due at 9.000 s may or may not make it), every one ended.
        XCTAssertTrue((3599...3601).contains(counts["sent"] ?? 0), "\(counts)")
        XCTAssertGreaterThan(counts["errored"] ?? 0, 0)
        XCTAssertGreaterThanOrEqual(summary["reconnections"] as? Int ?? 0, 1)

        let outages = try XCTUnwrap(summary["outages"] as? [[String: Any]])
        XCTAssertEqual(outages.count, 1, "\(outages)")
        let outage = try XCTUnwrap(outages.first)
        XCTAssertGreaterThanOrEqual(outage["from_s"] as? Double ?? 0, 2)
        XCTAssertLessThan(outage["to_s"] as? Double ?? 9, 9, "answered again before the run ended")
        XCTAssertGreaterThan(outage["errored"] as? Int ?? 0, 0)
        // Answered again after the restart: the last whole intervals succeeded.
        let resolution = try XCTUnwrap(summary["timeseries_resolution_s"] as? Double)
        let intervals = try XCTUnwrap(summary["timeseries"] as? [[String: Any]])
        let lastFull = try XCTUnwrap(intervals.last { ($0["interval_s"] as? Double ?? 0) >= resolution })
        XCTAssertGreaterThan((lastFull["counts"] as? [String: Int])?["succeeded"] ?? 0, 0, "\(lastFull)")
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<caption>Outages</caption>"), "the report lists it")
        XCTAssertTrue(html.contains("class=\"band\""), "the time chart shades it")
    }
}
