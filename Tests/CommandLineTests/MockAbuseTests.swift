import Foundation
import TestSupport
import XCTest

/// Hostile and broken clients against `pushbench mock` over real sockets, while a well-behaved
/// client keeps pushing (`Tests/Scripts/abuse_mock.py`, Debian's python3-h2): the mock stays up,
/// answers that client throughout, frees every abusive connection, counts what it refused, and
/// stops cleanly on Ctrl-C afterwards.
/// `Scripts/abuse.sh` runs the same attacks at full scale (10,000 idle connections).
final class MockAbuseTests: PushbenchTestCase {
    func testTheMockSurvivesAbuseAndKeepsServingAWellBehavedClient() throws {
        let idle = 500
        let script = Self.repository.appendingPathComponent("Tests/Scripts/abuse_mock.py").path
        let abuse = try ExternalProgram(path: "/usr/bin/python3").run(
            [
                script, pushbench.path, "--idle", String(idle), "--handshake-timeout", "1", "--summary",
                directory.file("abuse.json"),
            ],
            timeout: 240
        )
        XCTAssertEqual(abuse.status, 0, abuse.stdout + abuse.stderr)
        XCTAssertTrue(abuse.stdout.contains("\nPASS"), abuse.stdout)

        let summary = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("abuse.json"))))
                as? [String: Any]
        )
        let refused = try XCTUnwrap(summary["refused"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(refused["handshakes_timed_out"] as? Int ?? 0, 200)
        XCTAssertGreaterThan(refused["connections_refused_over_limit"] as? Int ?? 0, 0)
        let idleFigures = try XCTUnwrap(summary["idle"] as? [String: Any])
        XCTAssertEqual(idleFigures["connections_open_with_idle"] as? Int, idle + 1, "the idle ones and the client's")
        let good = try XCTUnwrap(summary["good_client"] as? [String: Any])
        XCTAssertGreaterThan(good["answers"] as? Int ?? 0, 100)
    }
}
