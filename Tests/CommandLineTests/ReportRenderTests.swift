import Foundation
import TestSupport
import XCTest

/// `report.html` as a reader sees it: rendered by headless chromium
/// (`Scripts/render-report.sh`), whose DOM must hold over-time charts with at least as many
/// points as the run's length promises, the budget's clock line, and a first screen that
/// answers the run's questions.
final class ReportRenderTests: PushbenchTestCase {
    private static let renderScript = repository.appendingPathComponent("Scripts/render-report.sh").path

    /// Runs `pushbench run` with `arguments`, renders its report, and returns the rendered DOM
    /// and the run's summary.
    private func renderedRun(_ arguments: [String]) throws -> (dom: String, summary: [String: Any]) {
        let reports = directory.file("runs-\(arguments.joined().hashValue)")
        let output = try pushbench.run(["run", "--reports-dir", reports] + arguments, timeout: 300)
        XCTAssertEqual(output.status, 0, output.stderr)
        let run = reports + "/" + (try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: reports).first))
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/summary.json")))
                as? [String: Any]
        )
        let render = try ExternalProgram(path: Self.renderScript).run(
            [run + "/report.html", run + "/report.png", "1000,2600", run + "/dom.html"],
            timeout: 300
        )
        XCTAssertEqual(render.status, 0, "render-report.sh (needs chromium: Scripts/install-deps.sh): \(render.stderr)")
        return (try String(contentsOfFile: run + "/dom.html", encoding: .utf8), summary)
    }

    /// Each `points` attribute of the over-time charts' polylines, as a count of points.
    private func overTimePointCounts(_ dom: String) throws -> [Int] {
        let section = try XCTUnwrap(dom.range(of: "<h2>Over time</h2>"))
        let end = try XCTUnwrap(dom.range(of: "<h2>Latency percentile spectrum</h2>"))
        let charts = String(dom[section.upperBound..<end.lowerBound])
        return charts.components(separatedBy: "<polyline").dropFirst().map { polyline in
            let points = polyline.components(separatedBy: "points=\"").dropFirst().first ?? ""
            return points.prefix { $0 != "\"" }.split(separator: " ").count
        }
    }

    /// Checks the over-time charts of `dom` against the run's summary: each throughput line has
    /// a point per interval, each latency line a point per interval with answers, and there are
    /// at least as many intervals as the run's length promises (one per 10 ms, up to 50; the
    /// run's last, sub-interval moment is its workers' shutdown).
    private func assertChartsAtRunResolution(_ dom: String, _ summary: [String: Any]) throws {
        let counts = try overTimePointCounts(dom)
        XCTAssertEqual(counts.count, 4, "completed/s, succeeded/s, p50 and p99")
        let intervals = try XCTUnwrap(summary["timeseries"] as? [[String: Any]])
        let seconds = try XCTUnwrap(summary["duration_s"] as? Double)
        let resolution = try XCTUnwrap(summary["timeseries_resolution_s"] as? Double)
        XCTAssertLessThanOrEqual(resolution, max(0.01, seconds / 50), "fine enough for 50 points over \(seconds) s")
        // The run's duration also covers its connections' teardown after the last answer, in which
        // nothing happens to chart: about 20 ms, which in a 60 ms run against a mock that answers
        // at once is a third of it (4 intervals of activity were seen in 56-64 ms runs).
        XCTAssertGreaterThanOrEqual(
            intervals.count,
            max(1, min(50, Int((seconds - 0.02) * 0.9 / 0.01))),
            "for \(seconds) s"
        )
        let answered = intervals.filter { ($0["p50_us"] as? Int ?? 0) > 0 }.count
        XCTAssertEqual(counts, [intervals.count, intervals.count, answered, answered])
    }

    func testAFullScenarioRunsReportShowsItsChartsClockAndFirstScreen() throws {
        let (dom, summary) = try renderedRun(["--activities", "200"])
        try assertChartsAtRunResolution(dom, summary)
        XCTAssertTrue(dom.contains("Modelled on the scenario's clock:"), "the budget section says its clock")
        XCTAssertFalse(dom.contains("too short to chart"), "a whole match on the scenario's clock is charted")
        let firstScreen = try XCTUnwrap(dom.components(separatedBy: "<div class=\"cards\">").first)
        for topic in ["sent", "books", "latency", "pace", "budget"] {
            XCTAssertTrue(firstScreen.contains("</b> ") && firstScreen.contains(">\(topic)</b>"), "no \(topic) line")
        }
        XCTAssertTrue(firstScreen.contains("The books balance"), "the first screen says the books balance")
    }

    func testAShortRunStillHasPointsToChart() throws {
        let (dom, summary) = try renderedRun(["--requests", "300"])
        try assertChartsAtRunResolution(dom, summary)
        XCTAssertTrue(dom.contains("The run sent only part of the scenario, so the budget covers"))
    }
}
