import Foundation
import TestSupport
import XCTest

/// A CI job gating a sender without a baseline: absolute thresholds with their verdicts on the
/// first screen, in `summary.json` and in JUnit; the report at a path known before the run; a
/// quiet screen; options from the environment.
final class GateOptionsTests: PushbenchTestCase {
    private func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testThresholdsGateARunAfterItsReportIsWritten() throws {
        let folder = directory.file("run")
        let junit = directory.file("gate.xml")
        let copy = directory.file("out/summary.json")
        let output = try pushbench.run([
            "run", "--requests", "300", "--no-budget", "--run-dir", folder, "--junit", junit, "--summary-json", copy,
            "--threshold", "p99<60s", "--threshold", "success_rate>=99.9%", "--threshold", "throughput>=100000000/s",
        ])
        XCTAssertEqual(output.status, 1, "a failed threshold exits 1: \(output.stderr)")
        XCTAssertTrue(output.stdout.contains("threshold  PASS p99<60s  (measured "), output.stdout)
        XCTAssertTrue(output.stdout.contains("from submission (closed loop)"), output.stdout)
        XCTAssertTrue(output.stdout.contains("threshold  PASS success_rate>=99.9%  (measured 100.000%"), output.stdout)
        XCTAssertTrue(output.stdout.contains("threshold  FAIL throughput>=100000000/s"), output.stdout)
        XCTAssertTrue(output.stdout.contains("report: \(folder)/report.html"), output.stdout)

        let summary = try json(folder + "/summary.json")
        let verdicts = try XCTUnwrap(summary["thresholds"] as? [[String: Any]])
        XCTAssertEqual(verdicts.map { $0["passed"] as? Bool }, [true, true, false])
        XCTAssertEqual(verdicts.map { $0["unit"] as? String }, ["ms", "percent", "per_s"])
        XCTAssertEqual(verdicts[2]["limit"] as? Double, 100_000_000)
        let latency = try XCTUnwrap(summary["latency_us"] as? [String: Any])
        let p99 = try XCTUnwrap(latency["p99"] as? Double)
        XCTAssertEqual(try XCTUnwrap(verdicts[0]["measured"] as? Double), p99 / 1000, accuracy: 0.001)
        XCTAssertEqual(
            try json(copy)["run_id"] as? String,
            summary["run_id"] as? String,
            "--summary-json is summary.json"
        )

        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("tests=\"3\" failures=\"1\""), xml)
        XCTAssertTrue(xml.contains("name=\"p99&lt;60s\"/>"), xml)
        XCTAssertTrue(xml.contains("<failure message=\"FAIL throughput&gt;=100000000/s"), xml)

        let passing = try pushbench.run([
            "run", "--requests", "100", "--no-budget", "--run-dir", directory.file("passing"), "--threshold",
            "missing==0", "--threshold", "cpu_per_push<=1s",
        ])
        XCTAssertEqual(passing.status, 0, passing.stderr)
    }

    func testAnUnknownMetricOrUnitIsRefusedWithWhatIsTaken() throws {
        let cases: [(String, String, String)] = [
            ("run", "p98<250ms", "no metric 'p98' for run; the metrics: p50, p90, p95, p99, p99.9, max, success_rate"),
            ("run", "p99<250", "'250' is not a duration: a number with us, ms, s or m, such as 250ms"),
            ("run", "success_rate>=99.9", "'99.9' is not a share: a number from 0 to 100 with %"),
            ("run", "throughput>=40000", "'40000' is not a rate: a number with /s"),
            ("run", "p99 250ms", "no comparison; write METRIC OP VALUE"),
            ("run", "fanout_p99<2s", "no metric 'fanout_p99' for run"),
            ("profile", "p95<1s", "no metric 'p95' for profile; the metrics: lag_p50"),
        ]
        for (command, expression, message) in cases {
            let arguments = [command, "--threshold", expression] + (command == "profile" ? ["--", "true"] : [])
            let output = try pushbench.run(arguments)
            XCTAssertEqual(output.status, 64, "\(expression): \(output.stderr)")
            assertCleanFailure(output, mentions: message)
        }
        let orphan = try pushbench.run(["run", "--junit", directory.file("j.xml"), "--requests", "5"])
        XCTAssertEqual(orphan.status, 64, orphan.stderr)
        assertCleanFailure(orphan, mentions: "--junit writes the verdicts of --threshold: give at least one")
    }

    func testQuietPrintsOnlyFailuresAndTheReportsPath() throws {
        let folder = directory.file("quiet")
        let output = try pushbench.run([
            "run", "--requests", "100", "--no-budget", "--run-dir", folder, "--quiet", "--threshold", "p50<1us",
        ])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.stdout, "report: \(folder)/report.html\n")
        XCTAssertTrue(output.stderr.hasPrefix("threshold  FAIL p50<1us"), output.stderr)
        XCTAssertEqual(output.stderr.split(separator: "\n").count, 1, output.stderr)
    }

    func testEveryOptionCanComeFromTheEnvironmentAndTheCommandLineWins() throws {
        let folder = directory.file("from-env")
        let output = try pushbench.run(
            ["run", "--requests", "40"],
            environment: [
                "PUSHBENCH_REQUESTS": "999", "PUSHBENCH_NO_BUDGET": "1", "PUSHBENCH_RUN_DIR": folder,
                "PUSHBENCH_QUIET": "true", "PUSHBENCH_THRESHOLD": "missing==0\nsuccess_rate>=99%",
                // A CI file's own variable, not an option to set: --version is never taken.
                "PUSHBENCH_VERSION": "0.2.0",
            ]
        )
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.stdout, "report: \(folder)/report.html\n")
        let summary = try json(folder + "/summary.json")
        XCTAssertEqual((summary["counts"] as? [String: Any])?["sent"] as? Int, 40, "the command line wins")
        XCTAssertEqual((summary["thresholds"] as? [[String: Any]])?.count, 2, "a repeatable option, a line each")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/budget_summary.json"), "--no-budget")

        let flag = try pushbench.run(["run", "--requests", "5"], environment: ["PUSHBENCH_DRY_RUN": "maybe"])
        XCTAssertEqual(flag.status, 64, flag.stderr)
        assertCleanFailure(flag, mentions: "PUSHBENCH_DRY_RUN=maybe: --dry-run is a flag; set it to 1 or true")
        let help = try pushbench.run(["run", "--help"])
        XCTAssertEqual(help.stdout.components(separatedBy: "PUSHBENCH_<OPTION>").count - 1, 1, "said once")
    }

    /// `compare` judges like against like: a closed loop against an open loop is refused in one
    /// line naming what differs, in every mode, unless asked for.
    func testCompareRefusesUnlikeWorkloads() throws {
        let closed = directory.file("closed")
        let open = directory.file("open")
        for (folder, pacing) in [(closed, ["--requests", "400"]), (open, ["--rate", "400", "--duration", "1s"])] {
            let run = try pushbench.run(["run", "--no-budget", "--activities", "100", "--run-dir", folder] + pacing)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        for mode in ["speed", "counts"] {
            let refused = try pushbench.run(["compare", closed, open, "--mode", mode])
            XCTAssertEqual(refused.status, 2, refused.stderr)
            assertCleanFailure(
                refused,
                mentions:
                    "the workloads differ: mode closed loop against open loop, rate as fast as streams free against 400/s, requests 400 against all, duration none against 1 s; give --allow-different-workloads"
            )
        }
        let allowed = try pushbench.run(["compare", closed, open, "--allow-different-workloads"])
        XCTAssertNotEqual(allowed.status, 2, allowed.stderr)
        XCTAssertTrue(allowed.stderr.contains("warning: the workloads differ"), allowed.stderr)
        XCTAssertTrue(allowed.stdout.contains("throughput_per_s"), "judged as runs, not as budgets: \(allowed.stdout)")
        let same = try pushbench.run(["compare", closed, closed])
        XCTAssertEqual(same.status, 0, same.stderr)
    }
}
