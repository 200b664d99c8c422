import Foundation
import TestSupport
import XCTest

/// `pushbench profile` with real third-party senders as the child: the aioapns adapter in
/// `examples/` (aioapns pinned from PyPI, as the conformance suite pins it) and h2load. Each must
/// be measured without any help from it: its pushes matched to its events, its CPU counted.
final class ProfileRealSendersTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private var reports: TemporaryDirectory!

    override func setUpWithError() throws {
        reports = try TemporaryDirectory()
    }

    override func tearDown() {
        reports.remove()
    }

    /// Profiles `sender` with `requests` pushes; returns its summary.
    private func profile(_ sender: [String], requests: Int, options: [String] = []) throws -> [String: Any] {
        try profileWithFolder(sender, requests: requests, options: options).summary
    }

    /// Profiles `sender` with `requests` pushes; returns its summary and report folder.
    private func profileWithFolder(
        _ sender: [String],
        requests: Int,
        options: [String] = []
    ) throws -> (summary: [String: Any], folder: String) {
        let output = try ExternalProgram.pushbench.run(
            ["profile", "--requests", String(requests), "--reports-dir", reports.path] + options
                + ["--"] + sender,
            timeout: 300
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let runs = try FileManager.default.contentsOfDirectory(atPath: reports.path)
        let folder = "\(reports.path)/\(try XCTUnwrap(runs.first))"
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(folder)/traffic/practices.json"), "the doctor ran")
        XCTAssertFalse(
            try FileManager.default.contentsOfDirectory(atPath: folder).contains { $0.hasSuffix(".p8") },
            "the key made for the run is gone"
        )
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/summary.json"))
        return (try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any]), folder)
    }

    private func assertEveryEventArrived(_ summary: [String: Any], total: Int) throws {
        let events = try XCTUnwrap(summary["events"] as? [String: Int])
        XCTAssertEqual(events, ["total": total, "received": total, "missing": 0, "extra": 0, "duplicates": 0])
        let sender = try XCTUnwrap(summary["sender"] as? [String: Any])
        XCTAssertEqual(sender["exit_status"] as? Int, 0)
        XCTAssertGreaterThan(try XCTUnwrap(sender["cpu_us_per_push"] as? Double), 0)
        XCTAssertGreaterThan(try XCTUnwrap(sender["peak_rss_bytes"] as? Int), 1 << 20)
    }

    /// The adapter a team copies: aioapns reads PUSHBENCH_EVENTS and sends each push at its at_s.
    /// A new connection starts at one stream until its first token is verified, as APNs does;
    /// aioapns loses requests racing that start (issue 46 saw 33 of 20,000), so this test lifts it.
    /// With `--perf`, its stacks are the Python interpreter's, and nothing of PushBench's.
    func testAnAioapnsSenderIsProfiled() throws {
        let python = try ConformanceSuiteTests.clientEnvironment()
        let adapter = Self.repository.appendingPathComponent("examples/aioapns_sender.py").path
        let (summary, folder) = try profileWithFolder(
            [python.path, adapter],
            requests: 600,
            options: ["--rate", "400", "--streams-before-token", "1000", "--perf"]
        )
        try assertEveryEventArrived(summary, total: 600)
        let lag = try XCTUnwrap(summary["lag"] as? [String: Any])
        XCTAssertGreaterThan(try XCTUnwrap(lag["max_ms"] as? Double), 0)
        let samples = try XCTUnwrap(summary["cpu_samples"] as? [String: Any])
        let top = try XCTUnwrap(samples["top_self"] as? [[String: Any]])
        XCTAssertTrue(top.contains { ($0["library"] as? String)?.hasPrefix("libpython3") == true }, "\(top)")
        let folded = try String(contentsOfFile: "\(folder)/stacks.folded", encoding: .utf8)
        XCTAssertTrue(folded.contains("`_PyEval_EvalFrameDefault"), "the interpreter's loop")
        XCTAssertFalse(folded.contains("pushbench`"), "nothing of the mock's process")
    }

    /// Two copies of the adapter, each sending every event: a sender that sends each update
    /// twice. The events arrived once each and as many times again as duplicates, none matched
    /// to a later event of its token, and lag counts first arrivals only.
    func testTwoCopiesOfASenderAreEachEventOnceAndADuplicate() throws {
        let python = try ConformanceSuiteTests.clientEnvironment()
        let adapter = Self.repository.appendingPathComponent("examples/aioapns_sender.py").path
        let summary = try profile(
            ["/bin/sh", "-c", "'\(python.path)' '\(adapter)' & '\(python.path)' '\(adapter)'; wait"],
            requests: 600,
            options: ["--rate", "400", "--streams-before-token", "1000"]
        )
        let events = try XCTUnwrap(summary["events"] as? [String: Int])
        XCTAssertEqual(events, ["total": 600, "received": 600, "missing": 0, "extra": 0, "duplicates": 600])
        let histogram = try XCTUnwrap((summary["lag"] as? [String: Any])?["histogram_us"] as? [String: Any])
        XCTAssertEqual(histogram["total_count"] as? Int, 600, "lag of the first arrivals only")
    }

    func testH2loadIsProfiled() throws {
        let adapter = Self.repository.appendingPathComponent("examples/h2load_sender.sh").path
        try assertEveryEventArrived(try profile([adapter], requests: 800), total: 800)
    }
}
