import Foundation
import Sampling
import TestSupport
import XCTest

/// `--perf`: perf samples the sender while it works, and the report shows where its CPU went.
/// CI installs linux-perf and runs as root, so these sample for real.
final class PerfFlagTests: PushbenchTestCase {
    private func runFolder(_ reports: String) throws -> String {
        let runs = try FileManager.default.contentsOfDirectory(atPath: reports)
        XCTAssertEqual(runs.count, 1, "one report folder: \(runs)")
        return "\(reports)/\(try XCTUnwrap(runs.first))"
    }

    func testARunsStacksAreItsWorkersEncodingAndFramingNotTheMocks() throws {
        let reports = directory.file("reports")
        let output = try pushbench.run(
            ["run", "--activities", "1000", "--requests", "20000", "--perf", "--reports-dir", reports],
            timeout: 180
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(output.stderr.contains("sampling call stacks with perf at 997 Hz on every CPU"), output.stderr)
        XCTAssertTrue(output.stdout.contains("where the CPU went ("), output.stdout)
        let folder = try runFolder(reports)
        let folded = try String(contentsOfFile: "\(folder)/stacks.folded", encoding: .utf8)
        let stacks = try FoldedStacks(text: folded)
        XCTAssertEqual(stacks.text, folded, "the folded file read back is the one written")
        XCTAssertGreaterThan(stacks.totalSamples, 100)
        XCTAssertEqual(Set(stacks.counts.keys.map { $0[0].function }), ["pushbench"], "the workers, as one sender")
        let frames = Set(stacks.counts.keys.flatMap { $0 })
        XCTAssertTrue(frames.contains { $0.function.contains("PayloadEncoder.") }, "PushBench's payload encoder")
        XCTAssertTrue(frames.contains { $0.library.hasPrefix("libnghttp2.so") }, "libnghttp2")
        XCTAssertFalse(frames.contains { $0.function.contains("PushConnectionHandler") }, "nothing of the mock's")

        let summary = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/summary.json")))
                as? [String: Any]
        )
        let samples = try XCTUnwrap(summary["cpu_samples"] as? [String: Any])
        XCTAssertEqual(samples["samples"] as? Int, stacks.totalSamples)
        XCTAssertEqual(samples["frequency_hz"] as? Int, 997)
        let shares = try XCTUnwrap(samples["shares_percent"] as? [String: Double])
        XCTAssertEqual(Set(shares.keys), Set(CPUShare.allCases.map(\.rawValue)))
        XCTAssertEqual(shares.values.reduce(0, +), 100, accuracy: 0.001)
        XCTAssertGreaterThan(shares["http2"] ?? 0, 1)
        XCTAssertEqual((samples["top_self"] as? [Any])?.count, 20)
        let html = try String(contentsOfFile: "\(folder)/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<svg class=\"flame\" id=\"fg\""))
        XCTAssertTrue(html.contains("The 20 functions with the most self time"))
    }

    func testWithoutPerfOneLineSaysSoAndTheRunGoesOn() throws {
        let reports = directory.file("reports")
        let output = try pushbench.run(
            ["run", "--activities", "100", "--requests", "300", "--perf", "--reports-dir", reports],
            environment: ["PATH": directory.path],
            timeout: 120
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(
            output.stderr.contains("--perf: perf is not installed (Debian's linux-perf); going on without it"),
            output.stderr
        )
        let folder = try runFolder(reports)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(folder)/stacks.folded"))
        let html = try String(contentsOfFile: "\(folder)/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("Not sampled: perf is not installed (Debian's linux-perf)."))
    }

    /// perf samples every CPU: a pushbench killed outright (SIGKILL) must not leave it running.
    func testPerfEndsWithAPushbenchKilledOutright() throws {
        let run = try RunningProgram(
            pushbench,
            ["run", "--rate", "100", "--duration", "60s", "--perf", "--reports-dir", directory.file("reports")],
            captureStderr: true
        )
        XCTAssertNotNil(run.waitForLine(containing: "sampling call stacks with perf", timeout: 60), run.output)
        let perf = try XCTUnwrap(Self.perfRecording(for: run.processIdentifier), "perf record, found in /proc")
        run.killAtOnce()
        _ = run.waitForExit()
        let deadline = Date().addingTimeInterval(10)
        while Self.isRunning(perf), Date() < deadline { usleep(50_000) }
        XCTAssertFalse(Self.isRunning(perf), "perf \(perf) still samples after pushbench was killed")
    }

    /// The `perf record` whose workload waits for process `pid`.
    private static func perfRecording(for pid: Int32) -> Int32? {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.compactMap(Int32.init).first { candidate in
            guard let data = FileManager.default.contents(atPath: "/proc/\(candidate)/cmdline") else { return false }
            let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return words.count > 1 && words[1] == "record" && words.contains("--pid=\(pid)")
        }
    }

    /// Whether `pid` exists and is not a zombie.
    private static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }
}
