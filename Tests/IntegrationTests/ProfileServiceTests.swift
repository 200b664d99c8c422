import Foundation
import TestSupport
import Wire
import XCTest

/// `pushbench profile --api` against a real sender service: `Tests/Scripts/live_activity_service.py`,
/// an HTTP/1.1 service that fans each group update out to the mock with aioapns (pinned from
/// PyPI, as the conformance suite pins it), healthy and with the faults a report must show in
/// numbers: 500 to every tenth update, the last 1% of each group dropped, a service that stops
/// answering, one that dies.
final class ProfileServiceTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private static let service = repository.appendingPathComponent("Tests/Scripts/live_activity_service.py").path
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    /// Three matches of 100 fans each: a call reaches 100 activities.
    private func scenario() throws -> String {
        let path = directory.file("matches.yaml")
        try """
        name: three-matches
        cohorts:
          - kind: football
            activities: 300
            groups: 3
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Profiles the service (`service`, the Python test service by default) with
    /// `serviceOptions` through `api`, the first `calls` calls; returns the exit, the output and
    /// the summary (when written).
    func profile(
        api: String = "examples/netmera-api.yaml",
        scenario: [String]? = nil,
        calls: Int = 60,
        schedule: [String] = ["--time-scale", "600"],
        options: [String] = [],
        service: [String]? = nil,
        serviceOptions: [String] = []
    ) throws -> (output: ExternalProgram.Output, summary: [String: Any]?, folder: String?) {
        let service = try service ?? [try ConformanceSuiteTests.clientEnvironment().path, Self.service]
        let reports = directory.file("reports-\(UUID().uuidString.prefix(8))")
        let output = try ExternalProgram.pushbench.run(
            ["profile", "--api", Self.repository.appendingPathComponent(api).path, "--reports-dir", reports]
                + (try scenario ?? ["--scenario", self.scenario(), "--activities", "300"])
                + ["--requests", String(calls), "--streams-before-token", "1000"] + schedule
                + options + ["--"] + service + serviceOptions,
            environment: ["NETMERA_API_KEY": "netmera-secret-5521", "CLEVERPUSH_API_KEY": "cleverpush-secret-7730"],
            timeout: 240
        )
        guard let run = try? FileManager.default.contentsOfDirectory(atPath: reports).first else {
            return (output, nil, nil)
        }
        let folder = "\(reports)/\(run)"
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/summary.json"))
        return (output, try JSONSerialization.jsonObject(with: data) as? [String: Any], folder)
    }

    func section(_ summary: [String: Any]?, _ key: String) throws -> [String: Any] {
        try XCTUnwrap(summary?[key] as? [String: Any], "summary.json has \(key)")
    }

    /// Every request of a phase is accounted for once.
    func assertAccounted(_ phase: [String: Any], sent: Int, file: StaticString = #filePath, line: UInt = #line) {
        let parts = ["succeeded", "refused", "timed_out", "failed"].map { phase[$0] as? Int ?? -1 }
        XCTAssertEqual(phase["sent"] as? Int, sent, "\(phase)", file: file, line: line)
        XCTAssertEqual(
            parts.reduce(0, +),
            sent,
            "sent = succeeded + refused + timed_out + failed",
            file: file,
            line: line
        )
    }

    func testTheNetmeraShapedServiceFansEveryGroupUpdateOut() throws {
        let (output, summary, folder) = try profile()
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let registrations = try section(summary, "registrations")
        assertAccounted(registrations, sent: 300)
        XCTAssertEqual(registrations["by_status"] as? [String: Int], ["200": 300])
        XCTAssertEqual(registrations["http_versions"] as? [Int], [1], "the service speaks HTTP/1.1")
        let api = try section(summary, "api")
        assertAccounted(api, sent: 60)
        XCTAssertEqual(api["by_status"] as? [String: Int], ["202": 60])
        let fanout = try section(summary, "fanout")
        XCTAssertEqual(fanout["expected_pushes"] as? Int, 6000, "60 calls to groups of 100")
        XCTAssertEqual(fanout["matched"] as? Int, 6000)
        XCTAssertEqual(fanout["matched_by_tag"] as? Int, 6000, "the service passes the content state through")
        XCTAssertEqual(fanout["missing"] as? Int, 0)
        XCTAssertEqual(fanout["extra"] as? Int, 0)
        let all = try XCTUnwrap(fanout["all"] as? [String: Any])
        let last = try XCTUnwrap(all["last_ms"] as? [String: Double])
        let first = try XCTUnwrap(all["first_ms"] as? [String: Double])
        XCTAssertEqual(last["count"], 60)
        XCTAssertLessThanOrEqual(try XCTUnwrap(first["p50"]), try XCTUnwrap(last["p50"]))
        XCTAssertNotNil((fanout["by_kind"] as? [String: Any])?["kick-off"], "by event kind")
        XCTAssertEqual(try section(summary, "events")["missing"] as? Int, 0)
        let sender = try section(summary, "sender")
        XCTAssertEqual(sender["stop"] as? String, "drained", "ended once its pushes were in")
        let wholeCost = try XCTUnwrap(sender["cpu_us_per_push"] as? Double)
        let fanoutCost = try XCTUnwrap(
            fanout["service_cpu_us_per_push"] as? Double,
            "the fan-out's cost in summary.json"
        )
        XCTAssertGreaterThan(fanoutCost, 0)
        XCTAssertLessThanOrEqual(fanoutCost, wholeCost, "the fan-out's cost is the whole cost but registering's")
        // The clock starts a second before the first call, so a progress line (one a second)
        // comes after the notice that sending began: it is said when the phase begins.
        let sending = try XCTUnwrap(output.stderr.range(of: "; sending the calls"), output.stderr)
        XCTAssertNotNil(
            output.stderr[sending.upperBound...].range(
                of: #"s  pushes \d+ of 6000 events"#,
                options: .regularExpression
            ),
            output.stderr
        )
        XCTAssertTrue(output.stdout.contains("of 6000 accepted pushes shown"), "the budget model: \(output.stdout)")
        for topic in ["register", "api", "fan-out", "fan-out cost", "cost", "doctor", "budget"] {
            XCTAssertTrue(output.stdout.contains("\n\(topic)  ") || output.stdout.hasPrefix("\(topic)  "), topic)
        }
        let page = try String(contentsOfFile: "\(try XCTUnwrap(folder))/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains("Fan-out to the last push of each call"))
        for file in try FileManager.default.subpathsOfDirectory(atPath: try XCTUnwrap(folder)) {
            let text = (try? String(contentsOfFile: "\(folder!)/\(file)", encoding: .utf8)) ?? ""
            XCTAssertFalse(text.contains("netmera-secret-5521"), "\(file) holds the API key")
        }
        XCTAssertFalse((output.stdout + output.stderr).contains("netmera-secret-5521"))
    }

    /// Every tenth update answered 500 and fanned out to nobody: 6 refused calls, their 600
    /// pushes missing, in numbers on the first screen and in summary.json.
    func testAServiceThatFailsEveryTenthUpdateIsShownInNumbers() throws {
        let (output, summary, _) = try profile(options: ["--settle", "2s"], serviceOptions: ["--fail-every", "10"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let api = try section(summary, "api")
        assertAccounted(api, sent: 60)
        XCTAssertEqual(api["by_status"] as? [String: Int], ["202": 54, "500": 6])
        XCTAssertEqual(api["refused"] as? Int, 6)
        let fanout = try section(summary, "fanout")
        XCTAssertEqual(fanout["missing"] as? Int, 600)
        XCTAssertEqual((fanout["all"] as? [String: Any])?["incomplete_calls"] as? Int, 6)
        XCTAssertEqual(fanout["extra"] as? Int, 0, "the tag keeps later pushes on their own calls")
        XCTAssertTrue(output.stdout.contains("500: 6"), output.stdout)
        XCTAssertTrue(output.stdout.contains("600 of 6000 pushes never arrived, in 6 calls"), output.stdout)
    }

    /// The last 1% of each group dropped: every call misses one push, so none completes, and 99%
    /// of each still arrives.
    func testAServiceThatDropsTheTailOfEachGroupIsShownInNumbers() throws {
        let (output, summary, _) = try profile(options: ["--settle", "2s"], serviceOptions: ["--drop-tail", "0.01"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let fanout = try section(summary, "fanout")
        XCTAssertEqual(fanout["missing"] as? Int, 60)
        let all = try XCTUnwrap(fanout["all"] as? [String: Any])
        XCTAssertEqual(all["incomplete_calls"] as? Int, 60)
        XCTAssertNil(all["last_ms"], "no call's last push came")
        XCTAssertEqual((all["p99_ms"] as? [String: Double])?["count"], 60, "99% of every call's did")
        let slowest = try XCTUnwrap(fanout["slowest"] as? [[String: Any]])
        XCTAssertEqual(slowest.first?["arrived"] as? Int, 99)
        XCTAssertTrue(output.stdout.contains("60 of 6000 pushes never arrived, in 60 calls"), output.stdout)
        XCTAssertTrue(output.stdout.contains("No call's pushes all arrived; 99% of them arrived within"), output.stdout)
        XCTAssertEqual(try section(summary, "sender")["stop"] as? String, "settled", "ended quiet, not drained")
        XCTAssertTrue(
            output.stdout.contains(
                "end  No push came for --settle after the last call's answer, so the service was ended with 60 owed pushes never sent"
            ),
            output.stdout
        )
    }

    /// A service that stops answering costs each request its --timeout, counted, and the profile
    /// ends within its bounds.
    func testAServiceThatStopsAnsweringCostsEachRequestItsTimeout() throws {
        let began = Date()
        let (output, summary, _) = try profile(
            calls: 30,
            options: ["--timeout", "1s", "--settle", "1s"],
            serviceOptions: ["--stall-after", "5"]
        )
        XCTAssertLessThan(Date().timeIntervalSince(began), 90, "bounded")
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let api = try section(summary, "api")
        assertAccounted(api, sent: 30)
        XCTAssertEqual(api["succeeded"] as? Int, 5)
        XCTAssertEqual((api["timed_out"] as? Int ?? 0) + (api["failed"] as? Int ?? 0), 25, "\(api)")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap((api["latency_ms"] as? [String: Double])?["max"]), 1000)
    }

    /// A service that sends every update at priority 10, whatever the scenario asks for: the
    /// budget line models the priorities it really sent, on the scenario's clock, and the
    /// doctor's finding gives the same count from the same model.
    func testTheBudgetLineAndTheDoctorAgreeOnWhatWasSent() throws {
        let (output, _, folder) = try profile(serviceOptions: ["--force-priority", "10"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let folderPath = try XCTUnwrap(folder)
        let budget =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: "\(folderPath)/budget_summary.json"))
            ) as? [String: Any]
        let throttled = try XCTUnwrap((budget?["outcomes"] as? [String: Int])?["throttled"])
        XCTAssertGreaterThan(throttled, 0, "every minute tick at 10 spends the budget")
        let practices =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: "\(folderPath)/traffic/practices.json"))
            ) as? [String: Any]
        let figures = try XCTUnwrap(practices?["figures"] as? [String: Any])
        XCTAssertEqual(figures["budget_throttled_updates"] as? Int, throttled, "one model for the screen")
        XCTAssertTrue(output.stdout.contains("all-priority-10"), output.stdout)
    }

    /// A service that dies mid-run is a failed profile, with its last words.
    func testAServiceThatDiesIsAFailedProfileWithItsLastWords() throws {
        let (output, _, _) = try profile(calls: 30, serviceOptions: ["--die-after", "5"])
        XCTAssertEqual(output.status, 3, output.stdout + output.stderr)
        XCTAssertTrue(output.stdout.contains("FAILED: the sender exited with status 1"), output.stdout)
        XCTAssertTrue(output.stdout.contains("dying at update call 6"), output.stdout)
    }

    /// The CleverPush-shaped example: one call per activity, the content state under its own key.
    func testTheCleverPushShapedServiceIsDrivenPerActivity() throws {
        let (output, summary, _) = try profile(
            api: "examples/cleverpush-api.yaml",
            scenario: ["--scenario", "delivery", "--activities", "40"],
            calls: 80,
            schedule: ["--rate", "200"]
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        assertAccounted(try section(summary, "registrations"), sent: 40)
        let api = try section(summary, "api")
        XCTAssertEqual(api["per"] as? String, "activity")
        assertAccounted(api, sent: 80)
        let fanout = try section(summary, "fanout")
        XCTAssertEqual(fanout["expected_pushes"] as? Int, 80)
        XCTAssertEqual(fanout["matched"] as? Int, 80)
        XCTAssertEqual(fanout["extra"] as? Int, 0)
    }

    /// A service that already runs, started here, not by profile: profile drives it through its
    /// API and measures its answers and pushes at the mock's fixed port with a certificate the
    /// service trusts, says its CPU was not measured, and leaves it running.
    func testAServiceThatAlreadyRunsIsDrivenWithoutBeingStarted() throws {
        let python = try ConformanceSuiteTests.clientEnvironment()
        let (certificate, tlsKey) = (directory.file("mock.pem"), directory.file("mock-key.pem"))
        _ = try LoopbackCertificate(certificatePath: certificate, keyPath: tlsKey)
        let providerKey = directory.file("AuthKey_RUNNING01.p8")
        try Data(try ES256PrivateKey().pkcs8PEM()).write(to: URL(fileURLWithPath: providerKey))
        let (mockPort, servicePort) = (try Self.freePort(), try Self.freePort())
        let service = Process()
        service.executableURL = URL(fileURLWithPath: python.path)
        service.arguments = [Self.service]
        service.environment = ProcessInfo.processInfo.environment.merging([
            "PUSHBENCH_SERVICE_PORT": String(servicePort), "PUSHBENCH_APNS_HOST": "127.0.0.1",
            "PUSHBENCH_APNS_PORT": String(mockPort), "PUSHBENCH_CA_FILE": certificate,
            "PUSHBENCH_AUTH_KEY": providerKey, "PUSHBENCH_KEY_ID": "RUNNING01", "PUSHBENCH_TEAM_ID": "TEAMRUN001",
            "PUSHBENCH_TOPIC": "com.example.pushbench.push-type.liveactivity", "NETMERA_API_KEY": "netmera-secret-5521",
        ]) { _, ours in ours }
        service.standardOutput = FileHandle.nullDevice
        service.standardError = FileHandle.nullDevice
        try service.run()
        defer {
            service.terminate()
            service.waitUntilExit()
        }
        let reports = directory.file("reports")
        let output = try ExternalProgram.pushbench.run(
            [
                "profile", "--api", Self.repository.appendingPathComponent("examples/netmera-api.yaml").path,
                "--scenario", try scenario(), "--activities", "300", "--requests", "30", "--time-scale", "600",
                "--streams-before-token", "1000", "--mock-port", String(mockPort), "--mock-tls-cert", certificate,
                "--mock-tls-key", tlsKey, "--auth-key", providerKey, "--key-id", "RUNNING01", "--team-id", "TEAMRUN001",
                "--reports-dir", reports,
            ],
            environment: ["NETMERA_API_KEY": "netmera-secret-5521", "PUSHBENCH_SERVICE_PORT": String(servicePort)],
            timeout: 120
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(output.stdout.contains("cost  Not measured: profile did not start the service"), output.stdout)
        XCTAssertFalse(output.stdout.contains("fan-out cost"), "no CPU figure without the process")
        XCTAssertTrue(service.isRunning, "profile left the service it did not start running")
        let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: reports).first)
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(reports)/\(run)/summary.json"))
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        assertAccounted(try section(summary, "registrations"), sent: 300)
        let fanout = try section(summary, "fanout")
        XCTAssertEqual(fanout["expected_pushes"] as? Int, 3000)
        XCTAssertEqual(fanout["matched"] as? Int, 3000)
        XCTAssertNil(fanout["service_cpu_us_per_push"], "no fan-out cost without the service's process")
        XCTAssertEqual(try section(summary, "sender")["stop"] as? String, "drained")
    }

    /// A TCP port free on 127.0.0.1 now.
    private static func freePort() throws -> Int {
        let listener = try LoopbackListener()
        defer { listener.close() }
        return listener.port
    }
}
