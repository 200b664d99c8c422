import Analysis
import Basics
import Instructions
import LoadEngine
import Reports
import Transport
import XCTest

/// Instruction counts: read from callgrind's file, and judged stage by stage.
final class InstructionCountsTests: XCTestCase {
    /// A callgrind file as `--toggle-collect` leaves it: the driver calls two stages (one of them
    /// from two call sites), a stage calls a helper, and names are defined once, then referred to.
    private static let callgrindFile = """
        # callgrind format
        version: 1
        events: Ir
        summary: 4460

        ob=(1) /tmp/pushbench
        fl=(1) ???
        fn=(1) $s10LoadEngine17PushStageWorkloadV16runCountedPushesyySiKF
        0 60
        cfn=(2) $s10LoadEngine17PushStageWorkloadV14countSignature33_ABCLLyyKF
        calls=10 0
        0 3000
        cfn=(3) $s10LoadEngine17PushStageWorkloadV20countPayloadEncoding33_ABCLLyyKF
        calls=6 0
        0 600
        cfn=(3)
        calls=4 0
        0 400

        fn=(2)
        0 2500
        cfn=(4) helper
        calls=10 0
        0 500

        fn=(4)
        0 500
        """

    func testTheDriversCalleesCarryTheirInclusiveCounts() throws {
        let callees = try CallgrindCallees(text: Self.callgrindFile, caller: "runCountedPushes")
        XCTAssertEqual(callees.collected, 4460)
        XCTAssertEqual(callees.callees.map(\.calls), [10, 10])
        XCTAssertEqual(callees.callees.map(\.instructions), [3000, 1000])
        XCTAssertTrue(callees.callees[1].name.contains("countPayloadEncoding"))
        XCTAssertThrowsError(try CallgrindCallees(text: Self.callgrindFile, caller: "noSuchDriver"))
        XCTAssertThrowsError(try CallgrindCallees(text: "events: Ir\n", caller: "runCountedPushes"))
    }

    func testAStageNotCalledOncePerPushIsRefused() throws {
        let callees = try CallgrindCallees(text: Self.callgrindFile, caller: "runCountedPushes")
        XCTAssertThrowsError(
            try InstructionCounts(callees: callees, pushes: 10, build: Self.build(), counter: "test", workload: "w")
        ) { error in
            XCTAssertTrue("\(error)".contains("calls of countScenarioEvent"), "\(error)")
        }
    }

    /// Two counts differing only in `stage`'s figure.
    private static func counts(
        _ stage: PushStage = .workloadEvent,
        rise percent: Double = 0
    ) -> (
        InstructionCounts, InstructionCounts
    ) {
        let stages = PushStage.allCases.map {
            InstructionCounts.Stage(stage: $0.rawValue, instructionsPerPush: 1000, calls: 100)
        }
        var raised = stages
        raised[PushStage.allCases.firstIndex(of: stage)!].instructionsPerPush *= 1 + percent / 100
        return (
            InstructionCounts(build: build(), counter: "test", workload: "w", pushes: 100, stages: stages),
            InstructionCounts(build: build(), counter: "test", workload: "w", pushes: 100, stages: raised)
        )
    }

    private static func build(version: String = "0.2.0") -> BuildDescription {
        BuildDescription(version: version, commit: "abc")
    }

    func testAStageThatRoseBeyondItsLimitFailsAndOnlyIt() throws {
        let (baseline, current) = Self.counts(.payloadEncoding, rise: 3)
        let comparison = try RunComparison(baseline: baseline, current: current, thresholds: ComparisonThresholds())
        XCTAssertFalse(comparison.passed)
        XCTAssertEqual(
            comparison.checks.filter { $0.verdict == .fail }.map(\.name),
            ["payload_encoding_instructions_per_push"]
        )
        XCTAssertTrue(comparison.junitXML.contains("name=\"payload_encoding_instructions_per_push\">\n    <failure"))
        XCTAssertFalse(comparison.text.contains("ratio_ci"), comparison.text)

        var lenient = ComparisonThresholds()
        lenient.maxStageRisePercent["payload_encoding"] = 5
        XCTAssertTrue(try RunComparison(baseline: baseline, current: current, thresholds: lenient).passed)
        let (same, within) = Self.counts(.signature, rise: 1.9)
        XCTAssertTrue(try RunComparison(baseline: same, current: within, thresholds: ComparisonThresholds()).passed)
    }

    func testCountsOfAnotherVersionOrStageListAreRefusedInOneLine() throws {
        let (baseline, current) = Self.counts()
        var older = baseline
        older.build = Self.build(version: "0.1.0")
        XCTAssertThrowsError(try RunComparison(baseline: older, current: current, thresholds: ComparisonThresholds())) {
            XCTAssertEqual(
                "\($0)",
                "the baseline was counted with another PushBench version (0.1.0, not 0.2.0): count the baseline again"
            )
        }
        var fewer = baseline
        fewer.stages.removeLast()
        XCTAssertThrowsError(try RunComparison(baseline: fewer, current: current, thresholds: ComparisonThresholds())) {
            XCTAssertTrue("\($0)".hasPrefix("the baseline was counted with another stage list"), "\($0)")
            XCTAssertFalse("\($0)".contains("\n"))
        }
    }
}
