import ArrivalMatching
import DeviceEmulation
import Foundation
import Profiling
import RequestFiles
import ServiceDriver
import Transport
import Workload
import XCTest

/// `profile --api`'s request file and what it becomes: the examples read and render as their
/// services expect, every mistake is refused with its line, and calls and fan-out are counted
/// as the scenario says. No sockets.
final class ServiceAPIFileTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private let environment = ["PUSHBENCH_SERVICE_PORT": "8123", "NETMERA_API_KEY": "k-1", "CLEVERPUSH_API_KEY": "c-1"]

    private func example(_ name: String) throws -> APIFile {
        try APIFile(path: Self.repository.appendingPathComponent("examples/\(name)").path, environment: environment)
    }

    private func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    private func refusal(_ text: String, environment: [String: String]? = nil) -> String {
        APIFile.refusal(of: text, environment: environment ?? self.environment)
    }

    /// A scenario of `groups` football matches of `perGroup` fans each.
    private func football(groups: Int, perGroup: Int) -> Scenario {
        Scenario(
            name: "matches",
            cohorts: [Scenario.Cohort(kind: .football, activities: groups * perGroup, groups: groups)]
        )
    }

    func testTheNetmeraExampleRendersItsRequestsAsTheServiceReadsThem() throws {
        let file = try example("netmera-api.yaml")
        XCTAssertFalse(file.perActivity)
        let workload = try ServiceWorkload(
            scenario: football(groups: 2, perGroup: 3),
            perActivity: false,
            requests: nil,
            timing: .scenarioTime(scale: 60)
        )
        let registration = APIFile.registration(of: 4, with: try XCTUnwrap(file.register), in: workload)
        XCTAssertEqual(registration.method, "POST")
        XCTAssertEqual(registration.url, "http://127.0.0.1:8123/rest/3.0/live-activity/register")
        XCTAssertTrue(registration.headers.contains("X-netmera-api-key: k-1"))
        let body = try json(registration.body)
        XCTAssertEqual(body["groupId"] as? String, "match-1")
        XCTAssertEqual(body["activityId"] as? String, "activity-4")
        XCTAssertEqual(body["token"] as? String, workload.updateToken(of: 4))

        let update = try XCTUnwrap(workload.calls.firstIndex { $0.phase == .update })
        let call = try json(file.eventRequest(call: update, in: workload, startAtUnix: 1_800_000_000).body)
        XCTAssertEqual(call["action"] as? String, "UPDATE")
        XCTAssertEqual(call["priority"] as? Int, workload.calls[update].priority, "a whole placeholder is a number")
        let state = try XCTUnwrap(call["contentState"] as? [String: Any], "the content state is an object")
        XCTAssertEqual(state["pushbench_event"] as? Int, update)
        XCTAssertEqual(Set(state.keys), Set(ActivityKind.football.stateFields + ["pushbench_event"]))
        let end = try XCTUnwrap(workload.calls.lastIndex { $0.phase == .end })
        XCTAssertEqual(
            try json(file.eventRequest(call: end, in: workload, startAtUnix: 0).body)["action"] as? String,
            "END"
        )
    }

    /// `{{content_state.NAME}}` sends one member of the state: a number as a whole value, its
    /// text inside longer text; a name no content state has is refused before anything starts.
    func testOneMemberOfTheContentStateCanBeSentAlone() throws {
        let file = try APIFile(
            text: """
                register:
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/register
                  body: {token: "{{update_token}}"}
                event:
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/games/{{group}}?home={{content_state.homeScore}}
                  body: {homeScore: "{{content_state.homeScore}}", line: "{{content_state.homeScore}}-{{content_state.awayScore}}"}
                """,
            path: "api.yaml",
            environment: environment
        )
        let workload = try ServiceWorkload(
            scenario: football(groups: 1, perGroup: 2),
            perActivity: false,
            requests: nil,
            timing: .scenarioTime(scale: 60)
        )
        let goal = try XCTUnwrap(workload.calls.firstIndex { $0.kind == .goal })
        let request = file.eventRequest(call: goal, in: workload, startAtUnix: 0)
        let fields = ActivityKind.football.stateFields
        let state = workload.calls[goal].state
        let home = state[try XCTUnwrap(fields.firstIndex(of: "homeScore"))]
        let away = state[try XCTUnwrap(fields.firstIndex(of: "awayScore"))]
        XCTAssertEqual(try json(request.body)["homeScore"] as? Int, Int(home), "a whole member is a number")
        XCTAssertEqual(try json(request.body)["line"] as? String, "\(home)-\(away)")
        XCTAssertTrue(request.url.hasSuffix("/games/0?home=\(home)"), request.url)

        let misspelt = try APIFile(
            text: """
                register:
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/register
                  body: {token: "{{update_token}}"}
                event:
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/games
                  body: {home: "{{content_state.homeScor}}"}
                """,
            path: "api.yaml",
            environment: environment
        )
        let api = ServiceAPI(file: misspelt, port: 8123, settings: ServiceSession.Settings(), settle: .seconds(1))
        XCTAssertThrowsError(
            try ServiceWork(
                api,
                scenario: football(groups: 1, perGroup: 2),
                requests: nil,
                timing: .scenarioTime(scale: 60),
                clock: ProfileClock()
            )
        ) { error in
            XCTAssertTrue("\(error)".contains("{{content_state.homeScor}} names no member"), "\(error)")
            XCTAssertTrue("\(error)".contains("homeScore, awayScore"), "\(error)")
        }
    }

    func testTheCleverPushExampleSendsOneCallPerActivity() throws {
        let file = try example("cleverpush-api.yaml")
        XCTAssertTrue(file.perActivity)
        let scenario = Scenario(name: "d", cohorts: [Scenario.Cohort(kind: .delivery, activities: 4)])
        let workload = try ServiceWorkload(scenario: scenario, perActivity: true, requests: nil, timing: .allAtOnce)
        XCTAssertTrue(workload.calls.allSatisfy { $0.activities.count == 1 })
        let sync = try json(APIFile.registration(of: 2, with: try XCTUnwrap(file.register), in: workload).body)
        XCTAssertEqual(sync["subscriptionId"] as? String, "sub-2")
        XCTAssertEqual(sync["iosLiveActivityToken"] as? String, workload.updateToken(of: 2))
        let end = try XCTUnwrap(workload.calls.firstIndex { $0.phase == .end })
        let send = try json(file.eventRequest(call: end, in: workload, startAtUnix: 1_000).body)
        XCTAssertEqual(send["subscriptionIds"] as? [String], ["sub-\(workload.calls[end].activities.lowerBound)"])
        XCTAssertEqual(send["iosLiveActivityEvent"] as? String, "end")
        XCTAssertNotNil(send["iosLiveActivityDismissalDate"] as? Int, "an end has a dismissal date")
        let update = try XCTUnwrap(workload.calls.firstIndex { $0.phase == .update })
        let sent = try json(file.eventRequest(call: update, in: workload, startAtUnix: 1_000).body)
        XCTAssertTrue(sent["iosLiveActivityDismissalDate"] is NSNull, "an update has none")
    }

    func testEveryMistakeIsRefusedWithItsLine() {
        let good = """
            register:
              url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/r
              body: {token: "{{update_token}}"}
            event:
              url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/e
              body: {state: "{{content_state}}"}
            """
        XCTAssertEqual(refusal(good), "read without complaint")
        XCTAssertEqual(
            refusal(good.replacingOccurrences(of: "{{update_token}}", with: "{{colour}}")),
            "api.yaml:3: unknown placeholder {{colour}}; the known ones are "
                + Placeholder.allCases.map { "{{\($0.rawValue)}}" }.joined(separator: ", ")
                + ", and {{content_state.NAME}} for one member of the content state"
        )
        XCTAssertEqual(
            refusal(good, environment: [:]),
            "api.yaml:2: ${PUSHBENCH_SERVICE_PORT} is not set in the environment"
        )
        XCTAssertEqual(
            refusal(good.replacingOccurrences(of: "{{content_state}}", with: "{{update_token}}")),
            "api.yaml:6: event uses {{update_token}}: an event sent per group has no single activity or token (use per: activity); "
                + "it knows {{group}}, {{event}}, {{action}}, {{content_state}}, {{priority}}, {{timestamp}}, {{stale_date}}, "
                + "{{dismissal_date}}, {{now}}"
        )
        XCTAssertEqual(
            refusal(good.replacingOccurrences(of: "{{update_token}}", with: "{{priority}}")),
            "api.yaml:3: register uses {{priority}}: a registration knows its activity, group and tokens only; "
                + "it knows {{activity}}, {{group}}, {{update_token}}, {{push_to_start_token}}, {{now}}"
        )
        XCTAssertEqual(
            refusal(good + "\n  retries: 3"),
            "api.yaml:7: event.retries: unknown key"
        )
        XCTAssertEqual(
            refusal(good.replacingOccurrences(of: "http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/e", with: "ftp://x/e")),
            "api.yaml:5: event.url: an http:// or https:// URL, not ftp://x/e"
        )
        XCTAssertTrue(refusal("register: [unclosed").hasPrefix("api.yaml:2: not valid YAML"), "at the end of the text")
        XCTAssertEqual(refusal("event: {}"), "api.yaml:1: register: required")
        XCTAssertEqual(
            refusal(good.replacingOccurrences(of: "{{update_token}}", with: "{{update_token")),
            "api.yaml:3: {{ is not closed in \"{{update_token\""
        )
    }

    /// One call per group step, reaching every activity of the group; the calls' pushes are the
    /// scenario's updates and ends, and nothing is due before the first call.
    func testAGroupStepIsOneCallThatReachesTheWholeGroup() throws {
        let scenario = football(groups: 3, perGroup: 4)
        let workload = try ServiceWorkload(
            scenario: scenario,
            perActivity: false,
            requests: nil,
            timing: .scenarioTime(scale: 60)
        )
        let pushes = try ScenarioStream(scenario).filter { $0.phase != .start }.count
        XCTAssertEqual(workload.expectedPushes, pushes)
        XCTAssertTrue(workload.calls.allSatisfy { $0.activities.count == 4 })
        XCTAssertEqual(Set(workload.calls.map(\.group)), [0, 1, 2])
        XCTAssertEqual(workload.calls.first?.dueMicroseconds, 0, "the clock starts at the first call")
        XCTAssertEqual(workload.calls.map(\.dueMicroseconds), workload.calls.map(\.dueMicroseconds).sorted())
        let limited = try ServiceWorkload(scenario: scenario, perActivity: false, requests: 5, timing: .allAtOnce)
        XCTAssertEqual(limited.calls.count, 5)
    }

    /// A service's pushes are matched by the call number it passed through, else by order, in the
    /// same book as a sender's; the first, half, 99% and last arrivals are ranks of the call's
    /// expected pushes, and a call's push sent twice is a duplicate, not extra.
    func testTheArrivalBookMatchesACallsPushesByTagThenByOrder() throws {
        let workload = try ServiceWorkload(
            scenario: football(groups: 1, perGroup: 4),
            perActivity: false,
            requests: 2,
            timing: .allAtOnce
        )
        let book = workload.arrivalBook()
        book.start(atNs: 1_000_000_000)
        for call in workload.calls.indices { book.sent(call: call, atNs: 1_000_000_000) }
        func push(_ activity: Int, tag: Int?, atMs: Int64) {
            let record = TrafficRecord(
                receivedMs: 0,
                deviceToken: activity < 0 ? "00ff" : workload.updateToken(of: activity),
                pushType: "liveactivity",
                priority: 10,
                event: .update,
                timestampSeconds: 0
            )
            let body = tag.map { #"{"aps":{"content-state":{"minute":1,"pushbench_event":\#($0)}}}"# } ?? "{}"
            book.arrived(record.arriving(at: 1_000_000_000 + atMs * 1_000_000, body: Array(body.utf8)))
        }
        push(0, tag: 1, atMs: 10)
        XCTAssertTrue(book.acceptedAnswer(token: workload.updateToken(of: 0), identity: 1), "tagged for call 1")
        push(1, tag: nil, atMs: 20)
        XCTAssertTrue(book.acceptedAnswer(token: workload.updateToken(of: 1), identity: 0), "first by order: call 0")
        push(1, tag: nil, atMs: 30)
        XCTAssertTrue(book.acceptedAnswer(token: workload.updateToken(of: 1), identity: 1), "and its second call 1")
        push(1, tag: nil, atMs: 40)
        push(-1, tag: nil, atMs: 40)
        for activity in [0, 2, 3] { push(activity, tag: 0, atMs: Int64(100 * (activity + 1))) }
        push(2, tag: 0, atMs: 500)
        let calls = book.calls
        XCTAssertEqual(calls.map(\.arrived), [4, 2])
        let first = calls[0].milestones
        XCTAssertEqual([first.firstMs, first.halfMs, first.p99Ms, first.lastMs], [20, 100, 400, 400])
        XCTAssertEqual(calls[1].milestones.halfMs, 30)
        XCTAssertNil(calls[1].milestones.lastMs, "two of its four pushes never came")
        let figures = book.figures
        XCTAssertEqual(figures.extra, 2, "a third push to activity 1, and a token no activity has")
        XCTAssertEqual(figures.duplicates, 1, "call 0's push to activity 2, sent twice")
        XCTAssertEqual(figures.matchedByTag, 4)
        XCTAssertEqual(figures.missing, 2)
    }
}
