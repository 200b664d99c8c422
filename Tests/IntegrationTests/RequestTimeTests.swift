import DeviceEmulation
import Foundation
import RequestFiles
import Workload
import XCTest

/// A request file that can say when: every time takes an offset and a format, `{{now}}` is the
/// moment a request is sent, and an activity's own start and end reach the service in the form
/// it reads (UNIX seconds or milliseconds, ISO 8601, Apple's reference date). Variables work in
/// any part of a URL, and each mistake is refused in one line naming it. No sockets.
final class RequestTimeTests: XCTestCase {
    private let environment = ["PUSHBENCH_SERVICE_PORT": "8123", "FEED_PORT": "9100"]
    private let startAtUnix = 1_800_000_000.0

    private static let file = """
        register:
          url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/register
          body: {token: "{{update_token}}", at: "{{now}}"}
        event:
          per: activity
          url: http://127.0.0.1:${FEED_PORT}/feed/{{activity}}
          body:
            at: "{{timestamp}}"
            soon: "{{timestamp+30s}}"
            before: "{{timestamp-5m|unix_ms}}"
            ends: "{{activity_end+10s|iso8601}}"
            reference: "{{timestamp|apple_reference}}"
            text: "ends {{activity_end|iso8601}}"
            started: "{{activity_start}}"
            sent: "{{now|unix_ms}}"
        """

    private func refusal(_ text: String) -> String { APIFile.refusal(of: text, environment: environment) }

    func testEveryTimeTakesAnOffsetAndAFormat() throws {
        let file = try APIFile(text: Self.file, path: "api.yaml", environment: environment)
        let scenario = Scenario(name: "m", cohorts: [Scenario.Cohort(kind: .football, activities: 4, groups: 2)])
        let workload = try ServiceWorkload(
            scenario: scenario,
            perActivity: true,
            requests: nil,
            timing: .scenarioTime(scale: 60),
            keepsActivityTimes: true
        )
        let index = try XCTUnwrap(workload.calls.indices.last { workload.calls[$0].phase == .update })
        let call = workload.calls[index]
        let activity = call.activities.lowerBound
        let before = Date().timeIntervalSince1970
        let request = file.eventRequest(call: index, in: workload, startAtUnix: startAtUnix)
        XCTAssertEqual(request.url, "http://127.0.0.1:9100/feed/\(activity)", "a variable names the port")
        let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        let at = startAtUnix + Double(call.dueMicroseconds) / 1e6
        XCTAssertEqual(body["at"] as? Int, Int(at.rounded(.down)), "UNIX seconds by default")
        XCTAssertEqual(body["soon"] as? Int, Int((at + 30).rounded(.down)))
        XCTAssertEqual(body["before"] as? Int, Int(((at - 300) * 1000).rounded(.down)))
        let reference = try XCTUnwrap(body["reference"] as? Double)
        XCTAssertEqual(reference, at - 978_307_200, accuracy: 0.001, "seconds since 2001-01-01, as Date encodes")
        let end = startAtUnix + Double(try XCTUnwrap(workload.activityTimes.end(of: activity))) / 1e6
        XCTAssertGreaterThanOrEqual(end, at, "the activity ends with its last update, or after")
        let ends = try XCTUnwrap(body["ends"] as? String)
        XCTAssertTrue(ends.hasSuffix("Z"), ends)
        XCTAssertEqual(try Self.unix(ofISO8601: ends), end + 10, accuracy: 0.001, "to the millisecond")
        let text = try XCTUnwrap(body["text"] as? String)
        XCTAssertTrue(text.hasPrefix("ends 20"), "inside text, as text: \(text)")
        XCTAssertEqual(try Self.unix(ofISO8601: String(text.dropFirst(5))), end, accuracy: 0.001)
        let started = startAtUnix + Double(try XCTUnwrap(workload.activityTimes.start(of: activity))) / 1e6
        XCTAssertEqual(body["started"] as? Int, Int(started.rounded(.down)))
        let sent = Double(try XCTUnwrap(body["sent"] as? Int)) / 1000
        XCTAssertTrue((before - 1)...(Date().timeIntervalSince1970 + 1) ~= sent, "now is when it is sent")
        XCTAssertEqual(file.loopbackPorts.ports, [8123, 9100], "both ports, each from its variable")
        XCTAssertEqual(file.loopbackPorts.elsewhere, [])
    }

    /// UNIX seconds of an ISO 8601 time in UTC, with or without milliseconds.
    private static func unix(ofISO8601 text: String) throws -> Double {
        let formatter = ISO8601DateFormatter()
        if text.contains(".") { formatter.formatOptions.insert(.withFractionalSeconds) }
        return try XCTUnwrap(formatter.date(from: text), text).timeIntervalSince1970
    }

    func testEachMistakeIsRefusedInOneLineNamingIt() {
        let event = "event:\n  url: http://127.0.0.1:8123/e\n  body: {a: \"VALUE\"}\n"
        let register = "register:\n  url: http://127.0.0.1:8123/r\n"
        let cases = [
            ("{{group|iso8601}}", "api.yaml:3: {{group|iso8601}}: an offset or a format is for a time"),
            ("{{timestamp+30}}", "{{timestamp+30}}: an offset is a sign, a number and its unit"),
            (
                "{{timestamp|rfc2822}}",
                "unknown time format |rfc2822; the formats are |unix, |unix_ms, |iso8601, |apple_reference"
            ),
            (
                "{{activity_end}}",
                "api.yaml:3: event uses {{activity_end}}: an event sent per group has no single activity or token (use per: activity); it knows {{group}},"
            ),
        ]
        for (value, message) in cases {
            let said = refusal(event.replacingOccurrences(of: "VALUE", with: value) + register)
            XCTAssertTrue(said.contains(message), "\(value): \(said)")
            XCTAssertFalse(said.contains("\n"), "one line: \(said)")
        }
        let unset = refusal(
            register + "event:\n  url: http://127.0.0.1:${UNSET_PORT}/e\n  headers:\n    key: ${ALSO_UNSET}\n"
        )
        XCTAssertEqual(unset, "api.yaml:4: ${UNSET_PORT} is not set in the environment", "named where first used")
    }
}

/// `service_sends`: what a service sends on its own clock, read strictly.
final class ServiceSendsFileTests: XCTestCase {
    private let report = "token_report:\n  url: http://127.0.0.1:8123/r\n  body: {t: \"{{update_token}}\"}\n"
    private let start = "start:\n  url: http://127.0.0.1:8123/s\n  body: {at: \"{{timestamp+5s|iso8601}}\"}\n"

    private func refusal(_ text: String) -> String { APIFile.refusal(of: text, environment: [:]) }

    func testAServiceThatSendsOnItsOwnClockNeedsNoEventRequest() throws {
        let file = try APIFile(
            text: report + start + "service_sends:\n  start: \"{{timestamp+5s}}\"\n  end: \"{{activity_end-2s}}\"\n",
            path: "api.yaml",
            environment: [:]
        )
        XCTAssertNil(file.event)
        XCTAssertEqual(file.serviceSends?.start, ServiceSends.OwedTime(base: .timestamp, offsetSeconds: 5))
        XCTAssertEqual(file.serviceSends?.end, ServiceSends.OwedTime(base: .activityEnd, offsetSeconds: -2))
    }

    /// What the service owes on its own clock is never sent to it: its ends at the moment the
    /// token report gave (plus the offset), its updates (`update: own`) at their changes' moments.
    func testWhatTheServiceOwesOnItsClockIsNeverSentAndKeepsItsMoment() throws {
        let sends = "service_sends:\n  end: \"{{activity_end+10s}}\"\n  update: own\n"
        let file = try APIFile(text: report + start + sends, path: "api.yaml", environment: [:])
        let scenario = Scenario(name: "m", cohorts: [Scenario.Cohort(kind: .football, activities: 4, groups: 2)])
        func workload(_ sends: ServiceSends?) throws -> ServiceWorkload {
            try ServiceWorkload(
                scenario: scenario,
                perActivity: false,
                requests: nil,
                timing: .scenarioTime(scale: 60),
                startsPerActivity: false,
                keepsActivityTimes: true,
                serviceSends: sends
            )
        }
        let told = try workload(nil)
        let own = try workload(file.serviceSends)
        XCTAssertFalse(told.calls.contains(where: \.ownClock))
        XCTAssertTrue(own.calls.allSatisfy(\.ownClock), "no call is sent")
        for (call, owed) in zip(told.calls, own.calls) {
            let shift: Int64 = call.phase == .end ? 10_000_000 : 0
            XCTAssertEqual(owed.dueMicroseconds, call.dueMicroseconds + shift, "\(call.kind)")
        }
        XCTAssertEqual(own.starts.map(\.owedMicroseconds), own.starts.map(\.dueMicroseconds), "starts when called")
    }

    func testEachMistakeIsRefusedInOneLine() {
        let cases = [
            (report, "event: required"),
            (
                "register:\n  url: http://127.0.0.1:8123/r\nservice_sends:\n  end: \"{{activity_end}}\"\n",
                "give token_report"
            ),
            (
                report + "service_sends:\n  start: \"{{timestamp}}\"\n",
                "service_sends.start: the start is owed at a time its start call gives; give start"
            ),
            (
                report + "service_sends:\n  end: \"{{now}}\"\n",
                "service_sends.end: one time of what the service was told, such as \"{{activity_end+10s}}\"; a token report tells {{activity_start}}, {{activity_end}}"
            ),
            (
                report + "service_sends:\n  end: \"at {{activity_end}}\"\n",
                "service_sends.end: one time of what the service was told"
            ),
            (
                report + "service_sends:\n  update: mine\n",
                "service_sends.update: own (the service updates on its own schedule)"
            ),
            (report + "service_sends:\n  delay: 5s\n", "service_sends.delay: unknown key"),
        ]
        for (text, message) in cases {
            let said = refusal(text)
            XCTAssertTrue(said.contains(message), "\(said) lacks \(message)")
        }
    }
}
