import LoadEngine
import XCTest

/// The workload `hotpath --instructions` counts: real pushes through real TLS and HTTP/2 to an
/// in-memory peer, every one answered.
final class PushStageWorkloadTests: XCTestCase {
    func testEveryPushThroughTheStagesIsAnsweredWithItsOwnID() throws {
        var workload = try PushStageWorkload(now: 1_790_000_000)
        try workload.warmUp(pushes: 5)
        XCTAssertEqual(workload.answered, 5, "the handshake and the first pushes")
        try workload.runCountedPushes(40)
        XCTAssertEqual(workload.answered, 45)
        XCTAssertEqual(workload.accepted, 45, "answered 200 with the apns-id each push sent")
    }

    func testEachStageNamesItsFunctionWithoutTheWordsSwiftWouldAbbreviate() {
        let words = ["Load", "Engine", "Push", "Stage", "Workload"]
        for stage in PushStage.allCases {
            XCTAssertFalse(words.contains { stage.functionName.contains($0) }, stage.functionName)
        }
        XCTAssertEqual(Set(PushStage.allCases.map(\.functionName)).count, PushStage.allCases.count)
    }
}
