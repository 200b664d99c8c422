import Foundation
import TestSupport
import XCTest

/// `pushbench compare` as CI runs it: the package's own counts gate against its committed
/// baseline, and the exit codes a pipeline reads.
final class CompareCommandTests: PushbenchTestCase {
    /// The committed baseline of `pushbench run --requests 2000 --activities 200 --seed 7`.
    private static let baseline = repository.appendingPathComponent("Benchmarks/baselines/counts-gate.json").path

    func testTheCountsGateAgainstTheCommittedBaselinePasses() throws {
        let reports = directory.file("runs")
        let run = try pushbench.run([
            "run", "--requests", "2000", "--activities", "200", "--seed", "7", "--reports-dir", reports,
            "--baseline", Self.baseline,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let folder = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: reports).first)
        // --baseline adds the judgement to the run's own output and report.
        XCTAssertTrue(run.stdout.contains("against the baseline:\nfigure"), run.stdout)
        let html = try String(contentsOfFile: reports + "/" + folder + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<h2>Against the baseline</h2>"), "no baseline section")
        XCTAssertTrue(html.contains("<td>succeeded</td><td class=\"num\">2000</td><td class=\"num\">2000</td>"))
        assertCleanFailure(
            try pushbench.run(["run", "--requests", "10", "--baseline", directory.file("absent.json")]),
            mentions: "--baseline: "
        )
        let gate = try pushbench.run(["compare", "--mode", "counts", Self.baseline, reports + "/" + folder])
        XCTAssertEqual(gate.status, 0, gate.stdout + gate.stderr)
        XCTAssertTrue(
            gate.stdout.contains("PASS: medians of 1 baseline and 1 current run(s), counts mode"),
            gate.stdout
        )
    }

    /// A real run's summary with its throughput and latency set to known figures, written to
    /// `name`.
    private func summary(_ name: String, throughput: Double) throws -> String {
        let run = directory.file("source-run")
        if !FileManager.default.fileExists(atPath: run) {
            XCTAssertEqual(try pushbench.run(["run", "--requests", "300", "--reports-dir", run]).status, 0)
        }
        let folder = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: run).first)
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(run)/\(folder)/summary.json"))
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["throughput_per_s"] = throughput
        object["latency_us"] = ["p50": 800, "p90": 1500, "p95": 1800, "p99": 2000, "p99_9": 3000, "max": 4000]
        return try directory.write(name, Array(try JSONSerialization.data(withJSONObject: object)))
    }

    func testExitCodesSayPassRegressionOrBadInput() throws {
        let baseline = try summary("baseline.json", throughput: 1000)
        let steady = try summary("steady.json", throughput: 990)
        let slower = try summary("slower.json", throughput: 800)
        XCTAssertEqual(try pushbench.run(["compare", baseline, steady]).status, 0)

        let markdown = directory.file("gate.md")
        let junit = directory.file("gate.xml")
        let regression = try pushbench.run([
            "compare", baseline, slower, "--max-throughput-drop", "5%", "--markdown", markdown, "--junit", junit,
        ])
        XCTAssertEqual(regression.status, 1, regression.stderr)
        XCTAssertTrue(regression.stdout.contains("REGRESSION"), regression.stdout)
        XCTAssertTrue(regression.stdout.contains("significance not judged: 1 and 1 run(s)"), regression.stdout)
        XCTAssertTrue(try String(contentsOfFile: markdown, encoding: .utf8).contains("❌ fail"))
        XCTAssertTrue(try String(contentsOfFile: junit, encoding: .utf8).contains(#"failures="1""#))
        XCTAssertEqual(try pushbench.run(["compare", baseline, slower, "--max-throughput-drop", "25%"]).status, 0)

        let thresholds = try directory.write("thresholds.json", Array(#"{"max_throughput_drop": "30%"}"#.utf8))
        XCTAssertEqual(try pushbench.run(["compare", baseline, slower, "--thresholds", thresholds]).status, 0)

        let badInputs: [(arguments: [String], message: String)] = [
            (["compare", baseline, directory.file("absent.json")], "absent.json: cannot read it"),
            (["compare", baseline, slower, "--max-p99-rise", "ten"], "--max-p99-rise 'ten': expected a percentage"),
            (["compare", baseline, slower, "--alpha", "1"], "--alpha '1': expected a significance level"),
            (["compare", baseline], "give BASELINE CURRENT: two runs, not 1"),
            (["compare", baseline, thresholds], "schema_version is not 2"),
        ]
        for (arguments, message) in badInputs {
            let output = try pushbench.run(arguments)
            XCTAssertEqual(output.status, 2, "\(arguments): \(output.stderr)")
            XCTAssertTrue(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
        let malformed = try pushbench.run(["compare", baseline, slower, "--no-such-flag"])
        XCTAssertEqual(malformed.status, 64, "a malformed command line is a usage error: \(malformed.stderr)")
    }
}
