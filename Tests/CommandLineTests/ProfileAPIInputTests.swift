import Foundation
import TestSupport
import XCTest

/// `profile --api`'s bad input: a malformed request file, an unknown placeholder, an unset
/// variable, a service that never listens. Each is refused before the clock starts, naming the
/// file's line, with exit status 2.
final class ProfileAPIInputTests: PushbenchTestCase {
    private let file = """
        register:
          url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/register
          headers: {X-Api-Key: "${PB_TEST_API_KEY}"}
          body: {group: "{{group}}", token: "{{update_token}}"}
        event:
          per: group
          url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/update
          body: {group: "{{group}}", state: "{{content_state}}"}
        """

    private func profile(
        _ text: String,
        command: [String] = ["sleep", "30"],
        options: [String] = []
    ) throws -> (output: ExternalProgram.Output, seconds: Double) {
        let path = directory.file("api.yaml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let began = Date()
        let output = try pushbench.run(
            ["profile", "--api", path, "--activities", "10", "--reports-dir", directory.file("reports")] + options
                + ["--"] + command,
            environment: ["PB_TEST_API_KEY": "key-that-must-not-show-9931"],
            timeout: 60
        )
        XCTAssertFalse((output.stdout + output.stderr).contains("key-that-must-not-show-9931"))
        return (output, Date().timeIntervalSince(began))
    }

    func testAnUnknownPlaceholderIsRefusedWithItsLine() throws {
        let (output, _) = try profile(file.replacingOccurrences(of: "{{update_token}}", with: "{{tokn}}"))
        XCTAssertEqual(output.status, 2, output.stderr)
        assertCleanFailure(output, mentions: "api.yaml:4: unknown placeholder {{tokn}}")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("reports")), "nothing started")
    }

    func testAnUnsetVariableIsRefusedWithItsLine() throws {
        let (output, _) = try profile(file.replacingOccurrences(of: "PB_TEST_API_KEY", with: "PB_UNSET_KEY"))
        XCTAssertEqual(output.status, 2, output.stderr)
        assertCleanFailure(output, mentions: "api.yaml:3: ${PB_UNSET_KEY} is not set in the environment")
    }

    func testAMalformedFileIsRefusedWithItsLine() throws {
        let (output, _) = try profile(file + "\n  body: [unclosed")
        XCTAssertEqual(output.status, 2, output.stderr)
        assertCleanFailure(output, mentions: "api.yaml:10: not valid YAML")
    }

    /// `sleep` never listens: refused after --service-wait, with the URL's line, and the sleeper
    /// ended.
    func testAServiceThatNeverListensIsRefusedBeforeTheClockStarts() throws {
        let (output, seconds) = try profile(file, options: ["--service-wait", "1s", "--grace", "1s"])
        XCTAssertEqual(output.status, 2, output.stdout + output.stderr)
        assertCleanFailure(output, mentions: "api.yaml:2: http://127.0.0.1:")
        XCTAssertFalse(output.stderr.contains("${PUSHBENCH_SERVICE_PORT}"), "the port is filled: \(output.stderr)")
        XCTAssertTrue(output.stderr.contains("accepted no connection in 1 s"), output.stderr)
        XCTAssertLessThan(seconds, 20, "bounded by --service-wait and --grace")
    }

    /// The device flags play a lifecycle; a file without token_report has none to play.
    func testDeviceFlagsNeedALifecycleFile() throws {
        let (output, _) = try profile(file, options: ["--dismiss", "0.1"])
        XCTAssertEqual(output.status, 2, output.stderr)
        assertCleanFailure(output, mentions: "has no token_report")
        let (bad, _) = try profile(file, options: ["--never-report", "1.5"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--never-report must be a share from 0 to 1"), bad.stderr)
        for wrong in ["5s,1s", "inf", "1s,inf", "nan", "1s,500s"] {
            let (delay, _) = try profile(file, options: ["--report-delay", wrong])
            XCTAssertEqual(delay.status, 64, delay.stderr)
            XCTAssertTrue(delay.stderr.contains("--report-delay: MEDIAN[,P99]"), delay.stderr)
        }
        // One duration rule everywhere: a bare number is refused with the fix.
        let (bare, _) = try profile(file, options: ["--report-delay", "1.5,10"])
        XCTAssertEqual(bare.status, 64, bare.stderr)
        XCTAssertTrue(bare.stderr.contains("--report-delay 1.5,10: a duration needs a unit"), bare.stderr)
    }

    /// Push-to-start cohorts are started by the operator: a lifecycle file without `start`
    /// cannot start them, and profile says so before the service starts.
    func testALifecycleWithoutAStartCannotStartPushToStartCohorts() throws {
        let lifecycle = """
            token_report:
              url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/register
              body: {activity: "{{activity}}", token: "{{update_token}}"}
            event:
              url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/update
              body: {group: "{{group}}", state: "{{content_state}}"}
            """
        let (output, _) = try profile(lifecycle, options: ["--time-scale", "60"])
        XCTAssertEqual(output.status, 2, output.stderr)
        assertCleanFailure(output, mentions: "push-to-start cohorts need the operator's start request (start:)")
    }

    /// A lifecycle's devices start and report on the scenario's clock: without --time-scale every
    /// call would go out before any device had reported, so profile refuses in one line that
    /// names the flag, before the service starts.
    func testALifecycleNeedsTheScenariosClock() throws {
        let lifecycle = """
            start:
              url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/start
              body: {group: "{{group}}"}
            token_report:
              url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/register
              body: {activity: "{{activity}}", token: "{{update_token}}"}
            event:
              url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/update
              body: {group: "{{group}}", state: "{{content_state}}"}
            """
        for pacing in [[], ["--rate", "100"]] {
            let (output, _) = try profile(lifecycle, options: pacing)
            XCTAssertEqual(output.status, 2, output.stderr)
            assertCleanFailure(output, mentions: "a lifecycle runs on the scenario's clock")
            XCTAssertTrue(output.stderr.contains("give --time-scale"), output.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("reports")), "nothing started")
        }
    }

    func testRegistrationOptionsNeedAnAPIFile() throws {
        let output = try pushbench.run(["profile", "--register-rate", "100", "--", "true"])
        XCTAssertEqual(output.status, 64, "a usage error: \(output.stderr)")
        XCTAssertTrue(output.stderr.contains("give --api FILE"), output.stderr)
    }

    /// Without a COMMAND the service already runs: the mock's port and the key it signs with are
    /// needed, and profile says so before anything starts.
    func testAServiceThatAlreadyRunsNeedsTheMockPortAndItsKey() throws {
        let path = directory.file("api.yaml")
        try file.write(toFile: path, atomically: true, encoding: .utf8)
        let output = try pushbench.run(["profile", "--api", path])
        XCTAssertEqual(output.status, 64, "a usage error: \(output.stderr)")
        XCTAssertTrue(output.stderr.contains("give --mock-port"), output.stderr)
    }
}
