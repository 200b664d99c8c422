import Foundation
import LoadEngine
import MockAPNs
import TestSupport
import Workload
import XCTest

/// The admin port seen by curl after a real run: plain HTTP/1.1, `/stats` and `/metrics` agreeing
/// with the sender's books.
final class MockAdminTests: XCTestCase {
    func testStatsAndMetricsOverPlainHTTPAgreeWithTheRun() throws {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"), "curl is needed to read the admin port")
        let mock = try MockFixture(
            tokenHygiene: try TokenHygiene(unregisteredFraction: 0.1, otherTopicFraction: 0),
            adminPort: 0
        )
        let admin = "http://127.0.0.1:\(try XCTUnwrap(mock.server.adminPort))"
        let load = try mock.load(requests: 600, connections: 2, streams: 20, transport: .nghttp2)
        let result = try LoadTest.run(load, tokens: mock.tokens())
        let unregistered = try XCTUnwrap(result.rejectedByReason["Unregistered"])

        let stats = try curl.run(["-sS", "--fail", admin + "/stats"])
        XCTAssertEqual(stats.status, 0, stats.stderr)
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any],
            stats.stdout
        )
        XCTAssertEqual(object["pushes"] as? Int, 600)
        XCTAssertEqual(object["accepted"] as? Int, result.counts.succeeded)
        XCTAssertEqual(object["pushes_by_push_type"] as? [String: Int], ["liveactivity": 600])
        let byConnection = try XCTUnwrap(object["pushes_by_connection"] as? [String: Int])
        XCTAssertEqual(byConnection.count, 2)
        XCTAssertEqual(byConnection.values.reduce(0, +), 600)
        XCTAssertEqual(
            Dictionary(uniqueKeysWithValues: byConnection.map { (Int($0.key)!, $0.value) }),
            result.perConnection,
            "the mock's connections are the sender's, by port"
        )

        let metrics = try curl.run(["-sS", "--fail", "-D", "-", admin + "/metrics"])
        XCTAssertEqual(metrics.status, 0, metrics.stderr)
        XCTAssertTrue(metrics.stdout.contains("content-type: text/plain; version=0.0.4"), metrics.stdout)
        let lines = metrics.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertTrue(
            lines.contains(#"pushbench_mock_pushes_total{status="200",reason=""} \#(result.counts.succeeded)"#)
        )
        XCTAssertTrue(
            lines.contains(#"pushbench_mock_pushes_total{status="410",reason="Unregistered"} \#(unregistered)"#)
        )
        XCTAssertTrue(lines.contains("pushbench_mock_connections_accepted_total 2"), metrics.stdout)

        let missing = try curl.run(["-sS", "-o", "/dev/null", "-w", "%{http_code}", admin + "/nothing"])
        XCTAssertEqual(missing.stdout, "404")
        let posted = try curl.run(["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--data", "x", admin + "/stats"])
        XCTAssertEqual(posted.stdout, "405")
    }
}
