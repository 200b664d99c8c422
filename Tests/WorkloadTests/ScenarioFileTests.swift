import XCTest

@testable import Workload

final class ScenarioFileTests: XCTestCase {
    private func error(_ text: String) -> String {
        do {
            _ = try Scenario(parsing: text)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testEveryBuiltInRoundTripsThroughYAML() throws {
        for scenario in Scenario.builtIn {
            XCTAssertEqual(try Scenario(parsing: scenario.yaml), scenario, scenario.name)
        }
    }

    func testJSONAndShortYAMLTakeTheDefaults() throws {
        let json = try Scenario(
            parsing: #"{"name": "sat", "cohorts": [{"kind": "football", "activities": 1000, "groups": 4}]}"#
        )
        XCTAssertEqual(json, Scenario(name: "sat", cohorts: [.init(kind: .football, activities: 1000, groups: 4)]))
        let yaml = try Scenario(
            parsing: """
                name: deliveries
                seed: 7
                cohorts:
                  - kind: delivery
                    activities: 50
                    starts: uniform
                    spread_s: 3600
                    priorities: {eta: 1}
                """
        )
        XCTAssertEqual(yaml.seed, 7)
        XCTAssertEqual(yaml.cohorts[0].groups, 50, "deliveries are their own groups by default")
        XCTAssertEqual(yaml.cohorts[0].priority(of: .eta), 1)
        XCTAssertEqual(yaml.cohorts[0].priority(of: .status), 10)
    }

    func testErrorsNameTheFieldAndTheProblem() {
        let cohort = #"cohorts: [{kind: football, activities: 10}]"#
        XCTAssertEqual(
            error("name: x\n" + cohort + "\ncolour: red"),
            "colour: unknown key; the file may have active_limit_s, cohorts, description, name, past_limit, seed"
        )
        XCTAssertTrue(
            error("name: x\ncohorts: [{kind: football, activities: 10, grups: 2}]").hasPrefix(
                "cohorts[0].grups: unknown key"
            )
        )
        XCTAssertEqual(
            error("name: x\ncohorts: [{kind: cricket, activities: 10}]"),
            "cohorts[0].kind: 'cricket' is not one of football, delivery, rideshare, upload, flash-sale"
        )
        XCTAssertEqual(
            error("name: x\ncohorts: [{kind: upload, activities: many}]"),
            "cohorts[0].activities: expected a whole number, got many"
        )
        XCTAssertEqual(
            error("name: x\ncohorts: [{kind: upload, activities: 0}]"),
            "cohorts[0].activities: must be 1 to 1000000000, not 0"
        )
        XCTAssertEqual(
            error("name: x\ncohorts: [{kind: upload, activities: 10, groups: 11}]"),
            "cohorts[0].groups: must be 1 to activities (10), not 11"
        )
        XCTAssertTrue(
            error("name: x\ncohorts: [{kind: upload, activities: 10, priorities: {goal: 10}}]").hasPrefix(
                "cohorts[0].priorities.goal: upload has no such event"
            )
        )
        XCTAssertTrue(
            error("name: x\ncohorts: [{kind: upload, activities: 10, priorities: {scored: 10}}]").hasPrefix(
                "cohorts[0].priorities.scored: not an event kind"
            )
        )
        XCTAssertEqual(
            error("name: x\ncohorts: [{kind: upload, activities: 10, priorities: {progress: 7}}]"),
            "cohorts[0].priorities.progress: must be 1, 5 or 10, not 7"
        )
        XCTAssertEqual(
            error("name: x\ncohorts: [{kind: upload, activities: 10, rotate_fraction: 2}]"),
            "cohorts[0].rotate_fraction: expected a number from 0.0 to 1.0, got 2"
        )
        XCTAssertEqual(
            error("name: x\ncohorts: [{kind: upload, activities: 10, push_to_start: maybe}]"),
            "cohorts[0].push_to_start: expected true or false, got maybe"
        )
        XCTAssertEqual(
            error("name: x\nactive_limit_s: 600\ncohorts: [{kind: football, activities: 10, join_s: 900}]"),
            "cohorts[0].join_s: 900 s is not shorter than active_limit_s (600 s), so its last activities would end before they start; shorten join_s or lengthen active_limit_s"
        )
        XCTAssertEqual(error("name: x"), "cohorts: required")
        XCTAssertEqual(error(cohort), "name: required")
        XCTAssertEqual(error("name: x\ncohorts: []"), "cohorts: at least one cohort is needed")
        XCTAssertEqual(error("- just\n- a list"), "the file: expected a mapping of keys to values")
        XCTAssertTrue(error("name: [unclosed").hasPrefix("not valid YAML or JSON"))
    }
}

final class EventKindTests: XCTestCase {
    func testOrdinalsArePositionsInAllCases() {
        XCTAssertEqual(EventKind.allCases.map(\.ordinal), Array(EventKind.allCases.indices))
    }
}
