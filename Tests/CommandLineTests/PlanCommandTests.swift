import Foundation
import TestSupport
import XCTest

/// `pushbench plan` on a real run's summary: the sizing with its arithmetic, the JSON for
/// scripts, the predictions, and clear errors.
final class PlanCommandTests: PushbenchTestCase {
    func testPlanSizesAFleetFromAMeasuredRun() throws {
        let reports = directory.file("runs")
        let run = try pushbench.run(["run", "--requests", "600", "--no-budget", "--reports-dir", reports])
        XCTAssertEqual(run.status, 0, run.stderr)
        let folder = reports + "/" + (try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: reports).first))

        let json = directory.file("plan.json")
        let plan = try pushbench.run([
            "plan", folder, "--peak", "10000000", "--within", "10s", "--rtt", "40ms", "--streams", "1000",
            "--predict-connections", "2,4", "--json", json,
        ])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        for line in ["target", "cores", "in flight", "connections", "hosts", "binding", "p99", "little's law"] {
            XCTAssertTrue(plan.stdout.contains("\n" + line + " "), "no \(line) line: \(plan.stdout)")
        }
        XCTAssertTrue(plan.stdout.contains("1,000,000 pushes/s × 40.0 ms = 40,000 requests"), plan.stdout)
        XCTAssertTrue(plan.stdout.contains("4 connection(s): "), plan.stdout)
        let document = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        )
        let sizing = try XCTUnwrap(document["plan"] as? [String: Any])
        XCTAssertEqual(sizing["connections"] as? Int, 58, "40,000 in flight ÷ (1000 streams × 0.7)")
        XCTAssertGreaterThanOrEqual(sizing["cores"] as? Int ?? 0, 1)
        XCTAssertEqual((document["predictions"] as? [Any])?.count, 2)

        let broadcast = try pushbench.run([
            "plan", folder, "--peak", "10000000", "--within", "10s", "--rtt", "40ms", "--streams", "1000", "--channels",
            "20",
        ])
        XCTAssertEqual(broadcast.status, 0, broadcast.stderr)
        XCTAssertTrue(broadcast.stdout.contains("by broadcast (iOS 18) over 20 channel(s), beside per token:"))
        XCTAssertTrue(broadcast.stdout.contains("per token   10,000,000 pushes"), broadcast.stdout)
        XCTAssertTrue(
            broadcast.stdout.contains("broadcast   20 broadcast(s) at 2/s, 1 core(s), 1 connection(s); 40 channel"),
            broadcast.stdout
        )
        assertCleanFailure(
            try pushbench.run(["plan", folder, "--rate", "1000", "--channels", "2"]),
            mentions: "--channels plans a --peak"
        )

        assertCleanFailure(
            try pushbench.run(["plan", folder, "--peak", "5"]),
            mentions: "--peak and --within go together"
        )
        assertCleanFailure(try pushbench.run(["plan", folder]), mentions: "give a target")
        let notASummary = try directory.write("other.json", Array(#"{"keys": []}"#.utf8))
        assertCleanFailure(try pushbench.run(["plan", notASummary, "--rate", "1000"]), mentions: "schema_version")
    }
}
