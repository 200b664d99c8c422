import Foundation
import XCTest

@testable import Workload

/// The files in `Scenarios/` are the built-ins, so the examples users copy never drift.
final class ScenarioExampleFileTests: XCTestCase {
    func testEachBuiltInHasAnEqualExampleFile() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Scenarios"
        )
        for scenario in Scenario.builtIn {
            let text = try String(contentsOf: folder.appendingPathComponent("\(scenario.name).yaml"), encoding: .utf8)
            XCTAssertEqual(text, scenario.yaml, "regenerate with: pushbench scenarios show \(scenario.name)")
            XCTAssertEqual(try Scenario(parsing: text), scenario)
        }
    }
}
