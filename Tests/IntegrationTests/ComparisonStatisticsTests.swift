import Analysis
import Foundation
import Reports
import XCTest

/// The timing gate's statistics: the Mann-Whitney U test against SciPy's figures, the bootstrap
/// interval, and a gate that fails only on a change both beyond its limit and significant.
final class ComparisonStatisticsTests: XCTestCase {
    /// Two-sided p-values from SciPy 1.17 (`mannwhitneyu(current, baseline)`, exact without ties
    /// and up to 30 a side, asymptotic otherwise).
    func testThePValuesAreSciPys() {
        let cases: [(baseline: [Double], current: [Double], u: Double, p: Double)] = [
            ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10], 25, 0.007936507936507936),
            ([100, 102, 98, 101, 99], [97, 103, 100.5, 98.5, 101.5], 13, 1.0),
            ([10, 11, 12], [13, 14, 15], 9, 0.1),
            ([5.1, 4.9, 5.3, 5.0], [4.1, 4.4, 3.9, 4.2, 4.0, 4.3], 0, 0.009523809523809525),
            ([1, 2, 2, 3, 3, 3], [2, 3, 3, 4, 4, 5], 29, 0.07840293453326791),
            ((0..<40).map(Double.init), (0..<35).map { Double($0) + 7.5 }, 872, 0.06855970814103057),
        ]
        for (baseline, current, u, p) in cases {
            let test = MannWhitneyTest(baseline: baseline, current: current)
            XCTAssertEqual(test.u, u, "\(baseline) against \(current)")
            XCTAssertEqual(test.pValue, p, accuracy: 1e-9, "\(baseline) against \(current)")
        }
    }

    func testTooFewRunsCannotReachSignificance() {
        XCTAssertEqual(MannWhitneyTest.smallestPValue(n: 1, m: 1), 1)
        XCTAssertEqual(MannWhitneyTest.smallestPValue(n: 3, m: 3), 0.1, accuracy: 1e-12)
        XCTAssertEqual(MannWhitneyTest.smallestPValue(n: 5, m: 5), 2.0 / 252, accuracy: 1e-12)
        XCTAssertEqual(MannWhitneyTest.runsNeeded(forAlpha: 0.01), 5)
        XCTAssertEqual(MannWhitneyTest.runsNeeded(forAlpha: 0.05), 4)
    }

    func testTheIntervalIsReproducibleAndHoldsTheMedianRatio() throws {
        let baseline: [Double] = [1000, 1012, 991, 1005, 998]
        let current: [Double] = [801, 790, 812, 805, 797]
        let interval = try XCTUnwrap(MedianRatioInterval(baseline: baseline, current: current, level: 0.99))
        XCTAssertEqual(MedianRatioInterval(baseline: baseline, current: current, level: 0.99), interval)
        XCTAssertLessThanOrEqual(interval.low, 801.0 / 1000)
        XCTAssertGreaterThanOrEqual(interval.high, 801.0 / 1000)
        XCTAssertLessThan(interval.high, 0.85, "every resample of these runs shows the drop")
        XCTAssertGreaterThan(interval.low, 0.75)
        XCTAssertNil(MedianRatioInterval(baseline: [1000], current: [800], level: 0.99), "one run a side")
    }

    private func runs(_ throughputs: [Double]) -> [RunFigures] {
        throughputs.map {
            RunFigures(
                throughputPerSecond: $0,
                p50Us: 800,
                p99Us: 2000,
                p999Us: 3000,
                sent: 1000,
                succeeded: 1000,
                rejected: 0,
                errored: 0,
                timedOut: 0,
                balanced: true,
                rejectedByReason: [:],
                cpuPerRequestUs: 12.5
            )
        }
    }

    /// The gate at its default thresholds on runs of these throughputs.
    private func gate(_ baseline: [Double], _ current: [Double]) -> RunComparison {
        RunComparison(baseline: runs(baseline), current: runs(current), thresholds: ComparisonThresholds())
    }

    private func throughputCheck(_ comparison: RunComparison) throws -> RunComparison.Check {
        try XCTUnwrap(comparison.checks.first { $0.name == "throughput_per_s" })
    }

    func testASeparatedDropBeyondTheLimitFails() throws {
        let comparison = gate([1000, 1012, 991, 1005, 998], [801, 790, 812, 805, 797])
        let check = try throughputCheck(comparison)
        XCTAssertEqual(check.verdict, .fail, comparison.text)
        XCTAssertEqual(check.pValue, "0.0079")
        XCTAssertFalse(check.ratioInterval.isEmpty)
        XCTAssertTrue(comparison.judgesSignificance)
        XCTAssertTrue(comparison.text.contains("significant at p < 0.01"), comparison.text)
        XCTAssertTrue(comparison.junitXML.contains("p 0.0079"), comparison.junitXML)
    }

    /// Medians 6% apart, beyond the 5% limit, but the runs overlap: noise could have done it.
    func testAnOverlappingDropBeyondTheLimitPasses() throws {
        let comparison = gate([1000, 880, 1080, 930, 1020], [940, 1050, 860, 990, 900])
        let check = try throughputCheck(comparison)
        XCTAssertEqual(check.change, "-6.0%")
        XCTAssertEqual(check.verdict, .pass, comparison.text)
        XCTAssertGreaterThan(Double(check.pValue) ?? 0, 0.01)
        XCTAssertTrue(comparison.passed, comparison.text)
    }

    /// One run a side cannot be tested; the gate says so and judges the medians.
    func testOneRunASideSaysItCannotJudgeSignificance() throws {
        let comparison = gate([1000], [800])
        XCTAssertFalse(comparison.judgesSignificance)
        XCTAssertEqual(try throughputCheck(comparison).verdict, .fail)
        XCTAssertEqual(try throughputCheck(comparison).pValue, "")
        XCTAssertTrue(
            comparison.text.contains("significance not judged: 1 and 1 run(s) cannot reach p < 0.01 (5 a side can)"),
            comparison.text
        )
    }

    func testAlphaIsCheckedAndReadFromTheThresholdsFile() throws {
        XCTAssertThrowsError(try ComparisonThresholds.significanceLevel("1.5", for: "--alpha")) { error in
            XCTAssertTrue("\(error)".contains("--alpha '1.5'"), "\(error)")
        }
        XCTAssertEqual(try ComparisonThresholds.significanceLevel("0.05", for: "--alpha"), 0.05)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thresholds-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"alpha": 0.05, "max_throughput_drop": "3%"}"#.utf8).write(to: file)
        let thresholds = try ComparisonThresholds.load(file.path)
        XCTAssertEqual(thresholds.alpha, 0.05)
        XCTAssertEqual(thresholds.maxThroughputDropPercent, 3)
    }
}
