import Foundation
import TestSupport
import XCTest

/// `run`'s embedded mock takes `mock`'s faults and answer rules under the same names, and a run
/// toward an endpoint refuses them (they would shape nothing).
final class EmbeddedMockTests: PushbenchTestCase {
    private func summary(in reports: String) throws -> [String: Any] {
        let runs = try FileManager.default.contentsOfDirectory(atPath: reports)
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(reports)/\(try XCTUnwrap(runs.first))/summary.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testTheEmbeddedMocksFaultsAndAnswerRulesShapeTheRun() throws {
        let reports = directory.file("reports")
        let output = try pushbench.run(
            [
                "run", "--activities", "200", "--requests", "2000", "--no-budget", "--reports-dir", reports,
                "--error-rate", "ServiceUnavailable=0.25", "--disallowed-topic", "com.example.other",
                "--fault-seed", "7", "--mock-threads", "2",
            ],
            timeout: 120
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let run = try summary(in: reports)
        let counts = try XCTUnwrap(run["counts"] as? [String: Int])
        XCTAssertEqual(counts["sent"], 2000)
        let refused = try XCTUnwrap((run["rejected_by_reason"] as? [String: Int])?["ServiceUnavailable"])
        XCTAssertEqual(Double(refused) / 2000, 0.25, accuracy: 0.05, "a quarter answered 503, as asked")
        XCTAssertEqual(counts["succeeded"]! + counts["rejected"]!, 2000)
    }

    func testARunTowardAnEndpointRefusesTheEmbeddedMocksOptions() throws {
        let output = try pushbench.run(
            ["run", "--endpoint", "https://127.0.0.1:9", "--insecure", "--error-rate", "Shutdown=0.5"],
            timeout: 30
        )
        XCTAssertEqual(output.status, 64, output.stderr)
        XCTAssertTrue(
            output.stderr.contains("shape the embedded mock; give them to `pushbench mock` instead"),
            output.stderr
        )
    }

    /// A scenario file's own count of activities is its author's: kept unless `--activities`
    /// is given, where a built-in scenario is scaled to 1,000.
    func testAScenarioFileKeepsItsOwnActivitiesUnlessTheFlagIsGiven() throws {
        let file = directory.file("five-hundred.yaml")
        try "name: five-hundred\ncohorts:\n  - kind: football\n    activities: 500\n    groups: 5\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        for (flags, activities) in [([], 500), (["--activities", "40"], 40)] {
            let reports = directory.file("reports-\(activities)")
            let output = try pushbench.run(
                ["run", "--scenario", file, "--requests", "50", "--no-budget", "--reports-dir", reports] + flags,
                timeout: 120
            )
            XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
            let parameters = try XCTUnwrap(try summary(in: reports)["parameters"] as? [String: Any])
            XCTAssertEqual(parameters["activities"] as? Int, activities, "\(flags)")
        }
    }
}
