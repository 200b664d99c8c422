import Analysis
import Foundation
import Reports
import XCTest

/// The CI gate's judgement on hand-made summaries whose figures are known.
final class RunComparisonTests: XCTestCase {
    private func figures(
        throughput: Double = 1000,
        p99: Double = 2000,
        sent: Int = 1000,
        rejected: Int = 0,
        balanced: Bool = true
    ) throws -> RunFigures {
        RunFigures(
            throughputPerSecond: throughput,
            p50Us: 800,
            p99Us: p99,
            p999Us: 3000,
            sent: sent,
            succeeded: sent - rejected,
            rejected: rejected,
            errored: 0,
            timedOut: 0,
            balanced: balanced,
            rejectedByReason: rejected > 0 ? ["BadDeviceToken": rejected] : [:],
            cpuPerRequestUs: 12.5
        )
    }

    private func verdicts(_ comparison: RunComparison) -> [String: RunComparison.Verdict] {
        Dictionary(uniqueKeysWithValues: comparison.checks.map { ($0.name, $0.verdict) })
    }

    func testMediansKeepOneNoisyRunFromFailingABuild() throws {
        let baseline = try [figures(throughput: 1000), figures(throughput: 1010), figures(throughput: 990)]
        let current = try [figures(throughput: 600, p99: 9000), figures(throughput: 1005), figures(throughput: 995)]
        let comparison = RunComparison(baseline: baseline, current: current, thresholds: ComparisonThresholds())
        XCTAssertTrue(comparison.passed, comparison.text)
    }

    func testEachLimitCatchesItsRegression() throws {
        let baseline = try [figures()]
        let thresholds = ComparisonThresholds()
        let slower = RunComparison(baseline: baseline, current: [try figures(throughput: 940)], thresholds: thresholds)
        XCTAssertEqual(verdicts(slower)["throughput_per_s"], .fail, "a 6% drop beyond 5%")
        XCTAssertEqual(
            verdicts(
                RunComparison(baseline: baseline, current: [try figures(throughput: 960)], thresholds: thresholds)
            )["throughput_per_s"],
            .pass
        )
        let later = RunComparison(baseline: baseline, current: [try figures(p99: 2300)], thresholds: thresholds)
        XCTAssertEqual(verdicts(later)["latency_p99_us"], .fail, "a 15% rise beyond 10%")
        let failing = RunComparison(baseline: baseline, current: [try figures(rejected: 2)], thresholds: thresholds)
        XCTAssertEqual(verdicts(failing)["error_rate_percent"], .fail, "0.2% of requests failed")
        let unbalanced = RunComparison(
            baseline: baseline,
            current: [try figures(balanced: false)],
            thresholds: thresholds
        )
        XCTAssertEqual(verdicts(unbalanced)["accounting_balanced"], .fail)
        XCTAssertFalse(unbalanced.passed)
    }

    /// Profiles are judged on what a sender's CI cares about: its pushes a second, its lag p99,
    /// its CPU per push and the events it lost.
    func testProfilesAreJudgedOnPushesLagCPUAndMissingEvents() throws {
        func profile(
            pushes: Double = 1000,
            lagP99: Double = 5000,
            cpu: Double = 100,
            missing: Int = 0
        ) throws
            -> RunFigures
        {
            var figures = try figures(throughput: pushes, p99: lagP99)
            figures.cpuPerRequestUs = cpu
            figures.events = 1000
            figures.missingEvents = missing
            return figures
        }
        let baseline = try [profile()]
        let thresholds = ComparisonThresholds()
        func verdict(_ current: RunFigures, _ check: String) -> RunComparison.Verdict? {
            verdicts(RunComparison(baseline: baseline, current: [current], thresholds: thresholds))[check]
        }
        let same = RunComparison(baseline: baseline, current: [try profile()], thresholds: thresholds)
        XCTAssertTrue(same.passed, same.text)
        XCTAssertEqual(
            same.checks.prefix(5).map(\.name),
            ["pushes_per_s", "lag_p99_us", "lag_p50_us", "cpu_us_per_push", "missing_events_percent"]
        )
        XCTAssertEqual(verdict(try profile(pushes: 900), "pushes_per_s"), .fail, "10% fewer pushes a second")
        XCTAssertEqual(verdict(try profile(lagP99: 6000), "lag_p99_us"), .fail, "20% later at p99")
        XCTAssertEqual(verdict(try profile(cpu: 115), "cpu_us_per_push"), .fail, "15% more CPU per push")
        XCTAssertEqual(verdict(try profile(cpu: 105), "cpu_us_per_push"), .pass)
        XCTAssertEqual(verdict(try profile(missing: 2), "missing_events_percent"), .fail, "0.2% of events lost")
    }

    /// Lifecycle profiles are set side by side on their kick-off, storm and first updates, and
    /// judged on the activities never updated, as missing events are.
    func testLifecycleProfilesShowTheirKickOffAndJudgeActivitiesNeverUpdated() throws {
        func lifecycle(neverUpdated: Double, firstUpdateP99: Double) throws -> RunFigures {
            var figures = try figures()
            figures.events = 1000
            figures.missingEvents = 0
            figures.lifecycle = LifecycleFigures(
                startFanoutLastMs: 900,
                reportP99Ms: 40,
                reportPeakPerS: 12_000,
                firstUpdateP50Ms: 2000,
                firstUpdateP99Ms: firstUpdateP99,
                neverUpdatedShare: neverUpdated
            )
            return figures
        }
        let baseline = [try lifecycle(neverUpdated: 0, firstUpdateP99: 9000)]
        let same = RunComparison(
            baseline: baseline,
            current: [try lifecycle(neverUpdated: 0, firstUpdateP99: 9500)],
            thresholds: ComparisonThresholds()
        )
        XCTAssertTrue(same.passed, same.text)
        let rows = Dictionary(uniqueKeysWithValues: same.checks.map { ($0.name, $0) })
        XCTAssertEqual(rows["lifecycle_time_to_first_update_p99_ms"]?.current, "9500.0")
        XCTAssertEqual(rows["lifecycle_token_reports_peak_per_s"]?.baseline, "12000.0")
        XCTAssertEqual(rows["lifecycle_never_updated_percent"]?.verdict, .pass)
        let lossy = RunComparison(
            baseline: baseline,
            current: [try lifecycle(neverUpdated: 0.05, firstUpdateP99: 9000)],
            thresholds: ComparisonThresholds()
        )
        XCTAssertEqual(verdicts(lossy)["lifecycle_never_updated_percent"], .fail, "5% of activities never updated")
        let plain = RunComparison(
            baseline: [try figures()],
            current: [try figures()],
            thresholds: ComparisonThresholds()
        )
        XCTAssertFalse(plain.checks.contains { $0.name.hasPrefix("lifecycle_") })
    }

    /// With `--perf` on both sides, compare shows where the CPU went, each class's share and its
    /// move in points, without judging it; without stacks on every run it shows nothing of it.
    func testSampledRunsShowWhereTheCPUMovedWithoutJudgingIt() throws {
        func sampled(http2: Double, json: Double) throws -> RunFigures {
            var figures = try figures()
            figures.cpuSharesPercent = ["http2": http2, "json": json, "kernel": 100 - http2 - json]
            return figures
        }
        let comparison = RunComparison(
            baseline: [try sampled(http2: 40, json: 5)],
            current: [try sampled(http2: 30, json: 15)],
            thresholds: ComparisonThresholds()
        )
        let rows = Dictionary(uniqueKeysWithValues: comparison.checks.map { ($0.name, $0) })
        XCTAssertEqual(rows["cpu_share_json_percent"]?.baseline, "5.0")
        XCTAssertEqual(rows["cpu_share_json_percent"]?.current, "15.0")
        XCTAssertEqual(rows["cpu_share_json_percent"]?.change, "+10.0 pts")
        XCTAssertEqual(rows["cpu_share_http2_percent"]?.change, "-10.0 pts")
        XCTAssertEqual(rows["cpu_share_other_percent"]?.current, "0.0")
        XCTAssertTrue(comparison.checks.filter { $0.name.hasPrefix("cpu_share_") }.allSatisfy { $0.verdict == .info })
        XCTAssertEqual(comparison.checks.count { $0.name.hasPrefix("cpu_share_") }, 7)
        XCTAssertTrue(comparison.passed)
        let mixed = RunComparison(
            baseline: [try sampled(http2: 40, json: 5)],
            current: [try figures()],
            thresholds: ComparisonThresholds()
        )
        XCTAssertFalse(mixed.checks.contains { $0.name.hasPrefix("cpu_share_") })
    }

    func testCountsModeJudgesOutcomesNotSpeed() throws {
        var thresholds = ComparisonThresholds()
        thresholds.mode = .counts
        let baseline = try [figures(), figures()]
        let slowButSame = RunComparison(
            baseline: baseline,
            current: [try figures(throughput: 100, p99: 99_000)],
            thresholds: thresholds
        )
        XCTAssertTrue(slowButSame.passed, slowButSame.text)
        XCTAssertEqual(verdicts(slowButSame)["throughput_per_s"], .info)
        let different = RunComparison(baseline: baseline, current: [try figures(rejected: 1)], thresholds: thresholds)
        XCTAssertEqual(verdicts(different)["rejected_by_reason"], .fail)
        XCTAssertEqual(verdicts(different)["succeeded"], .fail)
        XCTAssertEqual(verdicts(different)["sent"], .pass)
    }

    func testMarkdownAndJUnitSayTheSame() throws {
        let comparison = RunComparison(
            baseline: [try figures()],
            current: [try figures(throughput: 800)],
            thresholds: ComparisonThresholds()
        )
        XCTAssertTrue(comparison.markdown.contains("**REGRESSION**"), comparison.markdown)
        XCTAssertTrue(
            comparison.markdown.contains("| throughput_per_s | 1000.0 | 800.0 | -20.0% |  |  | drop ≤ 5% | ❌ fail |"),
            comparison.markdown
        )
        let xml = comparison.junitXML
        XCTAssertTrue(xml.contains(#"failures="1""#), xml)
        XCTAssertTrue(xml.contains(#"<testcase classname="pushbench.compare" name="throughput_per_s">"#), xml)
        XCTAssertTrue(xml.hasSuffix("</testsuite>\n"), xml)
    }

    func testASummaryOfAnotherSchemaOrWithAKeyMissingIsRefusedByName() {
        XCTAssertThrowsError(try RunSummary.decode(Data(#"{"schema_version": 1}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("schema_version is not 2"), "\(error)")
        }
        XCTAssertThrowsError(try RunSummary.decode(Data("[1, 2]".utf8))) { error in
            XCTAssertTrue("\(error)".contains("not a JSON object"), "\(error)")
        }
        let partial =
            #"{"schema_version": 2, "run_id": "r", "mode": "open_loop", "interrupted": false, "#
            + #""started_at_unix_s": 1, "duration_s": 1, "counts": {"sent": 1, "succeeded": 1, "rejected": 0, "#
            + #""errored": 0}}"#
        XCTAssertThrowsError(try RunSummary.decode(Data(partial.utf8), path: "a.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("a.json: "), "\(error)")
            XCTAssertTrue("\(error)".contains("counts.timed_out is missing"), "\(error)")
        }
    }
}
