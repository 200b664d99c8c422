import Foundation
import Wire
import Workload
import XCTest

@testable import LoadEngine

/// Scenario events become the requests ActivityKit expects: starts to push-to-start tokens with
/// attributes and an alert, updates and ends to the activity's update token.
final class ScenarioPushSourceTests: XCTestCase {
    private let scenario = Scenario(
        name: "test",
        cohorts: [.init(kind: .delivery, activities: 20, rotateFraction: 1, rotationWithinSeconds: 600)]
    )

    private func aps(_ body: [UInt8]) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        return try XCTUnwrap(object?["aps"] as? [String: Any])
    }

    func testEachPhaseGoesToItsTokenWithTheFieldsActivityKitNeeds() throws {
        var source = ScenarioPushSource(scenario: scenario)
        var path: [UInt8] = []
        var phases: Set<LifecyclePhase> = []
        var rotated = false
        for event in try ScenarioStream(scenario) {
            let body = try source.prepare(event, now: 1_800_000_000, path: &path)
            let aps = try aps(body)
            let token =
                event.phase == .start
                ? source.startTokens.hex(at: event.activity)
                : source.updateTokens.hex(at: 2 * event.activity + (event.tokenIndex & 1))
            XCTAssertEqual(String(decoding: path, as: UTF8.self), "/3/device/" + token)
            XCTAssertEqual(aps["event"] as? String, event.phase.rawValue)
            XCTAssertEqual(aps["timestamp"] as? Int, 1_800_000_000)
            let state = try XCTUnwrap(aps["content-state"] as? [String: Int])
            XCTAssertEqual(state.keys.sorted(), ActivityKind.delivery.stateFields.sorted())
            XCTAssertEqual(state["status"], Int(event.state[0]))
            switch event.phase {
            case .start:
                XCTAssertEqual(aps["attributes-type"] as? String, "DeliveryAttributes")
                XCTAssertEqual((aps["attributes"] as? [String: Int])?["activityID"], event.activity)
                XCTAssertNotNil(aps["alert"] as? [String: String], "a start needs an alert")
                XCTAssertEqual(aps["input-push-token"] as? Int, 1)
            case .update:
                XCTAssertNil(aps["attributes-type"])
                XCTAssertEqual(aps["stale-date"] as? Int, 1_800_000_000 + 900)
                XCTAssertEqual(aps["alert"] != nil, event.alert)
            case .end:
                XCTAssertEqual(aps["dismissal-date"] as? Int, 1_800_000_000 + 900)
            }
            XCTAssertEqual(Set(aps.keys), members(of: event), "no member of an earlier push lingers")
            phases.insert(event.phase)
            if event.tokenKind == .activityUpdate && event.tokenIndex & 1 == 1 { rotated = true }
        }
        XCTAssertEqual(phases, [.start, .update, .end])
        XCTAssertTrue(rotated, "every activity's token rotates, so the second token is used too")
    }

    /// The `aps` members `event`'s payload has, and no others.
    private func members(of event: WorkloadEvent) -> Set<String> {
        var members: Set<String> = ["event", "timestamp", "content-state"]
        switch event.phase {
        case .start:
            members.formUnion(["attributes-type", "attributes", "alert", "stale-date"])
            if event.inputPushToken { members.insert("input-push-token") }
        case .update:
            members.insert("stale-date")
            if event.alert { members.insert("alert") }
        case .end:
            members.insert("dismissal-date")
            if event.alert { members.insert("alert") }
        }
        return members
    }

    /// Cohorts of different kinds interleave in one stream: each payload names its own kind's
    /// fields, whichever cohort the push before it belonged to.
    func testEachCohortsContentStateNamesItsOwnFields() throws {
        let mixed = Scenario(
            name: "mixed",
            cohorts: [
                .init(kind: .delivery, activities: 10, rotateFraction: 0, rotationWithinSeconds: 600),
                .init(kind: .football, activities: 10, rotateFraction: 0, rotationWithinSeconds: 600),
            ]
        )
        var source = ScenarioPushSource(scenario: mixed)
        var path: [UInt8] = []
        var switches = 0
        var previousCohort: Int?
        for event in try ScenarioStream(mixed) {
            let state = try XCTUnwrap(
                try aps(source.prepare(event, now: 7, path: &path))["content-state"] as? [String: Int]
            )
            let fields = mixed.cohorts[event.cohort].kind.stateFields
            XCTAssertEqual(state.keys.sorted(), fields.sorted())
            for (index, name) in fields.enumerated() { XCTAssertEqual(state[name], Int(event.state[index])) }
            if let previousCohort, previousCohort != event.cohort { switches += 1 }
            previousCohort = event.cohort
        }
        XCTAssertGreaterThan(switches, 10, "the cohorts' pushes interleave")
    }

    func testTheSameScenarioSendsTheSameBytes() throws {
        var first = ScenarioPushSource(scenario: scenario)
        var second = ScenarioPushSource(scenario: scenario)
        var paths: ([UInt8], [UInt8]) = ([], [])
        for event in try ScenarioStream(scenario).prefix(200) {
            let one = try first.prepare(event, now: 5, path: &paths.0)
            let two = try second.prepare(event, now: 5, path: &paths.1)
            XCTAssertEqual(one, two)
            XCTAssertEqual(paths.0, paths.1)
        }
    }
}
