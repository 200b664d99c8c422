import Foundation
import Profiling
import RequestFiles
import XCTest

/// The request file's device side: a device reporting its push-to-start token, the operator's
/// start, a device reporting its update token and its close. A file with a `token_report` is a
/// lifecycle file, with no registrations up front; its requests are held to what each sender of
/// them knows.
final class APIFileLifecycleTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private let environment = ["PUSHBENCH_SERVICE_PORT": "8123", "NETMERA_API_KEY": "k-1"]

    private let event = """
        event:
          url: http://127.0.0.1:8123/update
          body: {groupId: "match-{{group}}", state: "{{content_state}}"}
        """

    private func refusal(_ text: String) -> String { APIFile.refusal(of: text, environment: environment) }

    func testTheNetmeraLifecycleExampleHasEveryDeviceSideRequest() throws {
        let file = try APIFile(
            path: Self.repository.appendingPathComponent("examples/netmera-lifecycle.yaml").path,
            environment: environment
        )
        XCTAssertNil(file.register, "the devices report their tokens: nothing is registered up front")
        let lifecycle = try XCTUnwrap(file.lifecycle)
        XCTAssertEqual(lifecycle.startToken?.urlText.hasSuffix("/rest/3.0/live-activity/start-token"), true)
        XCTAssertEqual(lifecycle.start?.urlText.hasSuffix("/rest/3.0/sendBulkNotification"), true)
        XCTAssertFalse(lifecycle.startPerActivity)
        XCTAssertTrue(lifecycle.tokenReport.urlText.hasSuffix("/rest/3.0/live-activity/register"))
        XCTAssertEqual(lifecycle.close?.urlText.hasSuffix("/rest/3.0/live-activity/close"), true)
    }

    func testTodaysFilesStayAsTheyAre() throws {
        let file = try APIFile(
            path: Self.repository.appendingPathComponent("examples/netmera-api.yaml").path,
            environment: environment
        )
        XCTAssertNotNil(file.register)
        XCTAssertNil(file.lifecycle)
    }

    func testEachDeviceSideRequestIsHeldToWhatItsSenderKnows() {
        let report = """
            token_report:
              url: http://127.0.0.1:8123/register
              body: {token: "{{update_token}}", old: "{{old_update_token}}", device: "{{device}}"}
            """
        XCTAssertEqual(refusal(report + "\n" + event), "read without complaint")
        let cases: [(text: String, message: String)] = [
            (
                event + "\nstart_token:\n  url: http://127.0.0.1:8123/s\n  body: {t: \"{{push_to_start_token}}\"}",
                "give token_report, the request a device reports its update token with"
            ),
            (
                report + "\n" + event + "\nregister:\n  url: http://127.0.0.1:8123/r",
                "registers nothing up front"
            ),
            (
                report + "\n" + event + "\nstart_token:\n  url: http://127.0.0.1:8123/s\n  body: {a: \"{{activity}}\"}",
                "start_token uses {{activity}}: a device reports its push-to-start token before it has an activity"
            ),
            (
                report + "\n" + event
                    + "\nstart:\n  url: http://127.0.0.1:8123/start\n  body: {t: \"{{push_to_start_token}}\"}",
                "start uses {{push_to_start_token}}: a start sent per group has no single activity"
            ),
            (
                report + "\n" + event
                    + "\nclose:\n  url: http://127.0.0.1:8123/close\n  body: {s: \"{{content_state}}\"}",
                "close uses {{content_state}}: a device's report knows its device, activity and tokens, not a call's; it knows "
                    + "{{activity}}, {{device}}, {{user}}, {{group}}, {{update_token}}, {{push_to_start_token}}, "
                    + "{{old_update_token}}, {{now}}, {{activity_start}}, {{activity_end}}"
            ),
            (event, "register: required"),
        ]
        for (text, message) in cases {
            let said = refusal(text)
            XCTAssertTrue(said.contains(message), "\(said) lacks \(message)")
        }
    }

    func testAStartPerActivityMayNameItsDevicesPushToStartToken() {
        let text = """
            token_report:
              url: http://127.0.0.1:8123/register
              body: {token: "{{update_token}}"}
            start:
              per: activity
              url: http://127.0.0.1:8123/start
              body: {token: "{{push_to_start_token}}", attributes: "{{attributes}}", type: "{{attributes_type}}"}
            """
        XCTAssertEqual(refusal(text + "\n" + event), "read without complaint")
    }
}

extension APIFileLifecycleTests {
    /// `app:` names the team's own app: its attributes type and the members its attributes and
    /// content state need. It belongs to the devices, so a file without `token_report` may not
    /// have one, and the type is required.
    func testTheFileNamesTheTeamsOwnApp() throws {
        let report = """
            token_report:
              url: http://127.0.0.1:8123/register
              body: {token: "{{update_token}}"}
            """
        let app = """
            app:
              attributes_type: TigerDuckActivityAttributes
              attributes: [gameID]
              content_state: [homeScore, status]
            """
        let file = try APIFile(text: [report, app, event].joined(separator: "\n"), path: "api.yaml", environment: [:])
        XCTAssertEqual(
            file.lifecycle?.app,
            DeviceApp(
                attributesType: "TigerDuckActivityAttributes",
                attributes: ["gameID"],
                contentState: ["homeScore", "status"]
            )
        )
        XCTAssertTrue(
            refusal(app + "\n" + event + "\nregister: {url: http://127.0.0.1:1/r}").contains("give token_report")
        )
        let typeless = app.replacingOccurrences(of: "  attributes_type: TigerDuckActivityAttributes\n", with: "")
        XCTAssertEqual(
            refusal([report, typeless, event].joined(separator: "\n")),
            "api.yaml:5: app.attributes_type: required"
        )
        XCTAssertTrue(
            refusal([report, app.replacingOccurrences(of: "[gameID]", with: "gameID"), event].joined(separator: "\n"))
                .contains("app.attributes: expected a list of names")
        )
    }
}
