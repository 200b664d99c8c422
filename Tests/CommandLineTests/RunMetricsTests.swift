import Foundation
import TestSupport
import XCTest

/// `pushbench run --metrics-port` scraped by curl while a real run goes on, and once it is over:
/// every scrape balances, and the last one agrees with `summary.json` exactly.
final class RunMetricsTests: PushbenchTestCase {
    func testScrapesBalanceDuringTheRunAndAgreeWithTheSummaryAtItsEnd() throws {
        let reports = directory.file("reports")
        let run = try RunningProgram(
            pushbench,
            [
                "run", "--requests", "3000", "--rate", "600", "--activities", "200", "--other-topic", "0.1",
                "--no-budget", "--metrics-port", "0", "--metrics-hold", "20s", "--reports-dir", reports,
            ],
            captureStderr: true
        )
        let announced = try XCTUnwrap(run.waitForLine(containing: "metrics: http://"), run.output)
        let url = String(try XCTUnwrap(announced.split(separator: " ").first { $0.hasPrefix("http://") }))
        let runID = String(try XCTUnwrap(announced.split(separator: " ").last?.dropLast()))

        var during: [PrometheusScrape] = []
        while run.output.contains("serving the final figures") == false, during.count < 200 {
            if let scrape = try PrometheusScrape.fetch(url), scrape.value("pushbench_run_workers", run: runID) == 1 {
                during.append(scrape)
            }
            usleep(200_000)
        }
        XCTAssertNotNil(run.waitForLine(containing: "serving the final figures"), run.output)
        let final = try XCTUnwrap(try PrometheusScrape.fetch(url), "no scrape during --metrics-hold")
        run.interrupt()
        _ = run.waitForExit()

        XCTAssertGreaterThan(during.count, 5, "a 5-second run scraped every 200 ms")
        var previousSent = 0.0
        for scrape in during {
            let sent = try XCTUnwrap(scrape.value("pushbench_run_pushes_sent_total", run: runID))
            let ended = scrape.total("pushbench_run_pushes_total")
            let inFlight = try XCTUnwrap(scrape.value("pushbench_run_in_flight_pushes", run: runID))
            XCTAssertEqual(sent, ended + inFlight, "each worker answers from one moment of its books")
            XCTAssertGreaterThanOrEqual(sent, previousSent, "a counter never goes down")
            previousSent = sent
        }
        XCTAssertTrue(during.contains { $0.value("pushbench_run_pushes_sent_total", run: runID)! < 3000 })

        let folder = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: reports).first)
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(reports)/\(folder)/summary.json"))
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let counts = try XCTUnwrap(summary["counts"] as? [String: Int])
        XCTAssertEqual(final.value("pushbench_run_pushes_sent_total", run: runID), Double(counts["sent"]!))
        XCTAssertEqual(
            final.value("pushbench_run_pushes_total", #"outcome="succeeded",reason="""#, run: runID),
            Double(counts["succeeded"]!)
        )
        XCTAssertEqual(
            final.value("pushbench_run_pushes_total", #"outcome="timed_out",reason="""#, run: runID),
            Double(counts["timed_out"]!)
        )
        let reasons = try XCTUnwrap(summary["rejected_by_reason"] as? [String: Int])
        XCTAssertFalse(reasons.isEmpty, "--other-topic 0.1 makes the mock refuse some pushes")
        for (reason, count) in reasons {
            XCTAssertEqual(
                final.value("pushbench_run_pushes_total", #"outcome="rejected",reason="\#(reason)""#, run: runID),
                Double(count),
                reason
            )
        }
        XCTAssertEqual(final.value("pushbench_run_workers_finished", run: runID), 1)
        XCTAssertEqual(final.value("pushbench_run_in_flight_pushes", run: runID), 0)

        for (name, key) in [
            ("pushbench_run_push_latency_seconds", "latency_histogram_us"),
            ("pushbench_run_schedule_lag_seconds", "schedule_lag_histogram_us"),
        ] {
            let histogram = try XCTUnwrap(summary[key] as? [String: Any])
            let pairs = try XCTUnwrap(histogram["buckets"] as? [[UInt64]])
            let count = pairs.reduce(0) { $0 + $1[1] }
            XCTAssertEqual(final.value(name + "_count", run: runID), Double(count), name)
            XCTAssertEqual(
                final.value(name + "_sum", run: runID),
                Double(pairs.reduce(0) { $0 + $1[0] * $1[1] }) / 1e6,
                name
            )
            let bounds = final.samples.keys.filter { $0.hasPrefix(name + "_bucket{") && !$0.contains("+Inf") }
            XCTAssertGreaterThan(bounds.count, 5, name)
            for key in bounds {
                let bound = try XCTUnwrap(Double(key.split(separator: "\"").dropLast().last ?? ""), key)
                let expected = pairs.filter { Double($0[0]) <= bound * 1e6 }.reduce(0) { $0 + $1[1] }
                XCTAssertEqual(final.samples[key], Double(expected), key)
            }
        }
        let cpu = try XCTUnwrap(summary["engine_cpu_s"] as? Double)
        XCTAssertEqual(final.total("pushbench_run_worker_cpu_seconds_total"), cpu, accuracy: 0.001)
    }

    func testAMetricsPortInUseStopsTheRunBeforeItStarts() throws {
        let listener = try LoopbackListener()
        let port = listener.port

        let reports = directory.file("reports")
        let output = try pushbench.run([
            "run", "--requests", "10", "--no-budget", "--metrics-port", "\(port)", "--reports-dir", reports,
        ])
        assertCleanFailure(output, mentions: "--metrics-port: 127.0.0.1:\(port) is in use")
        XCTAssertFalse(output.stderr.contains("mock APNs on"), "nothing started: \(output.stderr)")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: reports),
            [],
            "no report of a run never made"
        )
        listener.close()
    }
}
