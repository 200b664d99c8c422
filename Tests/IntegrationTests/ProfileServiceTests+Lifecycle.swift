import Foundation
import TestSupport
import XCTest

/// `pushbench profile --api` playing the devices too, against the same real service: devices
/// report push-to-start tokens, the operator's start calls fan out as start pushes the devices
/// check, each device reports the update token its start minted, and updates reach the
/// activities whose tokens the service learned; with the service's faults (lost reports, refused
/// starts, stalled registrations) and the devices' (dismissals, dead tokens) in numbers.
extension ProfileServiceTests {
    /// A Netmera-shaped lifecycle of three matches of 100 fans, the first `calls` updates, devices
    /// reporting fast enough to be known before the first update (3 s after the starts).
    func lifecycle(
        calls: Int = 5,
        options: [String] = [],
        service: [String]? = nil,
        serviceOptions: [String] = []
    ) throws -> (output: ExternalProgram.Output, summary: [String: Any]?, folder: String?) {
        try profile(
            api: "examples/netmera-lifecycle.yaml",
            calls: calls,
            options: ["--report-delay", "0.2s,0.5s", "--settle", "2s"] + options,
            service: service,
            serviceOptions: serviceOptions
        )
    }

    func testTheNetmeraLifecycleStartsEveryActivityAndUpdatesItOnceItsTokenIsReported() throws {
        let (output, summary, folder) = try lifecycle()
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let lifecycle = try section(summary, "lifecycle")
        let starts = try XCTUnwrap(lifecycle["starts"] as? [String: Any])
        assertAccounted(starts, sent: 3)
        XCTAssertEqual(starts["by_status"] as? [String: Int], ["202": 3], "one start call a match")
        assertAccounted(try section(summary, "registrations"), sent: 300)
        let startFanout = try XCTUnwrap(lifecycle["start_fanout"] as? [String: Any])
        XCTAssertEqual(startFanout["expected_pushes"] as? Int, 300)
        XCTAssertEqual(startFanout["matched"] as? Int, 300, "every start push started its activity")
        let storm = try XCTUnwrap(lifecycle["storm"] as? [String: Any])
        let reports = try XCTUnwrap(storm["reports"] as? [String: Any])
        assertAccounted(reports, sent: 300)
        XCTAssertEqual(reports["by_status"] as? [String: Int], ["200": 300])
        XCTAssertEqual((storm["per_second"] as? [Int])?.reduce(0, +), 300, "offered")
        XCTAssertEqual((storm["answered_per_second"] as? [Int])?.reduce(0, +), 300, "answered")
        XCTAssertGreaterThan(storm["peak_per_s"] as? Int ?? 0, 0)
        XCTAssertGreaterThan(storm["peak_answered_per_s"] as? Int ?? 0, 0)
        XCTAssertEqual(
            lifecycle["start_pushes"] as? [String: Int],
            ["sent": 300, "accepted": 300, "refused": 0],
            "the starts are in the books"
        )
        XCTAssertEqual(try section(summary, "counts")["sent"] as? Int, 300 + 500, "starts and updates alike")
        let perUnit = try XCTUnwrap(lifecycle["service_cpu_us_per"] as? [String: Double])
        XCTAssertEqual(perUnit.keys.sorted(), ["start_push", "token_report", "update_push"])
        let activities = try XCTUnwrap(lifecycle["activities"] as? [String: Any])
        XCTAssertEqual(activities["started"] as? Int, 300)
        XCTAssertEqual(activities["updated"] as? Int, 300)
        XCTAssertEqual(activities["never_started"] as? Int, 0)
        XCTAssertEqual((lifecycle["time_to_first_update_ms"] as? [String: Double])?["count"], 300)
        XCTAssertEqual(lifecycle["wasted_pushes"] as? Int, 0)
        XCTAssertEqual(try section(summary, "fanout")["missing"] as? Int, 0, "every update reached its activity")
        let emulation = try XCTUnwrap(lifecycle["emulation"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(
            emulation["device_events"] as? Int ?? 0,
            300 + 300 + 500,
            "starts, reports, updates"
        )
        XCTAssertEqual(
            (lifecycle["service_cpu_by_phase_s"] as? [String: Double])?.keys.sorted(),
            ["registration_storm", "start", "updates"]
        )
        for topic in ["start tokens", "starts", "storm", "first update", "wasted", "costs"] {
            XCTAssertTrue(output.stdout.contains("\n\(topic)  "), "\(topic): \(output.stdout)")
        }
        let page = try String(contentsOfFile: "\(try XCTUnwrap(folder))/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains("The registration storm: token reports offered and answered each second"))
    }

    /// A service that loses 5% of the token reports it answers: each report it lost is one
    /// activity never updated, put down to the service, and no other is.
    func testAServiceThatLosesTokenReportsLeavesThoseActivitiesNeverUpdated() throws {
        let (output, summary, folder) = try lifecycle(serviceOptions: ["--drop-reports", "0.05"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let activities = try XCTUnwrap(try section(summary, "lifecycle")["activities"] as? [String: Any])
        let never = try XCTUnwrap(activities["started_never_updated"] as? Int)
        let log = try String(contentsOfFile: "\(try XCTUnwrap(folder))/sender.stderr.log", encoding: .utf8)
        let dropped = try XCTUnwrap(
            log.firstMatch(of: /token reports dropped: (\d+)/).flatMap { Int($0.1) },
            "the service says how many it dropped: \(log)"
        )
        XCTAssertGreaterThan(dropped, 0)
        XCTAssertEqual(activities["never_updated_by_cause"] as? [String: Int], ["report_lost_by_service": dropped])
        XCTAssertEqual(never, dropped)
        let missing = try XCTUnwrap(try section(summary, "fanout")["missing"] as? Int)
        XCTAssertTrue(
            (never...(never * 5)).contains(missing),
            "each lost activity misses its match's updates: \(missing)"
        )
        XCTAssertTrue(output.stdout.contains("were never updated (report lost by service: \(never))"), output.stdout)
    }

    /// Refused starts start nothing; stalled registrations cost each report its timeout.
    func testRefusedStartsAndStalledRegistrationsAreCounted() throws {
        let refused = try lifecycle(calls: 2, serviceOptions: ["--fail-starts", "1"])
        XCTAssertEqual(refused.output.status, 3, "a service that sent nothing failed: \(refused.output.stdout)")
        XCTAssertTrue(refused.output.stdout.contains("the mock received no push"), refused.output.stdout)
        let figures = try section(refused.summary, "lifecycle")
        XCTAssertEqual((figures["starts"] as? [String: Any])?["by_status"] as? [String: Int], ["500": 3])
        XCTAssertEqual((figures["activities"] as? [String: Any])?["never_started"] as? Int, 300)
        XCTAssertTrue(refused.output.stdout.contains("0 of 300 devices started"), refused.output.stdout)

        let stalled = try lifecycle(calls: 2, options: ["--timeout", "1s"], serviceOptions: ["--stall-reports", "3"])
        XCTAssertEqual(stalled.output.status, 0, stalled.output.stdout + stalled.output.stderr)
        let storm = try XCTUnwrap(try section(stalled.summary, "lifecycle")["storm"] as? [String: Any])
        let reports = try XCTUnwrap(storm["reports"] as? [String: Any])
        assertAccounted(reports, sent: 300)
        XCTAssertEqual((reports["timed_out"] as? Int ?? 0) + (reports["failed"] as? Int ?? 0), 300, "\(reports)")
        let activities = try XCTUnwrap(try section(stalled.summary, "lifecycle")["activities"] as? [String: Any])
        // The service stores a token before it stalls, so it updates some activities all the same.
        let failed = try XCTUnwrap((activities["never_updated_by_cause"] as? [String: Int])?["report_failed"])
        XCTAssertEqual(
            failed + (activities["updated"] as? Int ?? 0),
            200,
            "the two calls reach two of the three matches; the third's activities were owed no update: \(activities)"
        )
    }

    /// Local starts, a service that never hears of a dismissal, and dead tokens answered 410:
    /// the pushes to dismissed activities are wasted whatever APNs answered.
    func testLocalStartsAndDismissalsAPushCannotReachAreWasted() throws {
        let (output, summary, folder) = try profile(
            api: "examples/cleverpush-lifecycle.yaml",
            scenario: [
                "--scenario", Self.repository.appendingPathComponent("examples/local-start-deliveries.yaml").path,
                "--activities", "200",
            ],
            calls: 4000,
            options: ["--report-delay", "0.1s,0.3s", "--dismiss", "0.3", "--unregister-delay", "0s", "--settle", "2s"]
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let lifecycle = try section(summary, "lifecycle")
        XCTAssertNil(lifecycle["starts"], "the apps start their own activities")
        let activities = try XCTUnwrap(lifecycle["activities"] as? [String: Any])
        XCTAssertEqual(activities["started"] as? Int, 200)
        XCTAssertGreaterThan(activities["dismissed"] as? Int ?? 0, 20)
        XCTAssertEqual(
            (lifecycle["service_cpu_by_phase_s"] as? [String: Double])?.keys.sorted(),
            ["registration_storm", "updates"],
            "no start call, no start phase: the token reports are the storm's"
        )
        let wasted = try XCTUnwrap(lifecycle["wasted_pushes_by_cause"] as? [String: Int])
        XCTAssertGreaterThan(wasted["after_end_or_dismissal"] ?? 0, 0, "\(wasted)")
        let traffic = try String(contentsOfFile: "\(try XCTUnwrap(folder))/traffic.csv", encoding: .utf8)
        XCTAssertTrue(traffic.contains(",410,Unregistered,"), "a dead token is answered 410 after the delay")
        XCTAssertTrue(output.stdout.contains("apps started their activities themselves"), output.stdout)
    }

    /// A service that starts each activity the moment it learns its push-to-start token, before
    /// any operator call: every device starts, outside the calls' fan-out, and PushBench
    /// measures it (it once died here on an arithmetic overflow).
    func testAServiceThatStartsBeforeTheClockIsMeasured() throws {
        let (output, summary, _) = try lifecycle(calls: 2, serviceOptions: ["--start-on-token"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let activities = try XCTUnwrap(try section(summary, "lifecycle")["activities"] as? [String: Any])
        XCTAssertEqual(activities["started"] as? Int, 300)
        let early = try XCTUnwrap(activities["starts_before_their_call"] as? Int)
        XCTAssertGreaterThanOrEqual(early, 100, "the service's own starts came before the calls: \(activities)")
        let fanout = try XCTUnwrap(try section(summary, "lifecycle")["start_fanout"] as? [String: Any])
        XCTAssertEqual(early + (fanout["matched"] as? Int ?? -1), 300, "each start counted once, early or by its call")
        XCTAssertTrue(
            output.stdout.contains("more were started by the service before their call was due"),
            output.stdout
        )
    }

    /// The mock's token hygiene answers a fifth of the tokens 410: a start it refused starts
    /// no device, so as many devices never start as the mock answered starts 410.
    func testAStartAPNsRefusedStartsNoDevice() throws {
        let (output, summary, folder) = try lifecycle(calls: 2, options: ["--unregistered", "0.2"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let traffic = try String(contentsOfFile: "\(try XCTUnwrap(folder))/traffic.csv", encoding: .utf8)
        let refusedStarts = traffic.split(separator: "\n").filter { $0.contains(",410,Unregistered,start,") }.count
        XCTAssertGreaterThan(refusedStarts, 20, "about a fifth of 300")
        let activities = try XCTUnwrap(try section(summary, "lifecycle")["activities"] as? [String: Any])
        XCTAssertEqual(activities["never_started"] as? Int, refusedStarts, "\(activities)")
        XCTAssertEqual(activities["started"] as? Int, 300 - refusedStarts)
        XCTAssertTrue(output.stdout.contains("\(300 - refusedStarts) of 300 devices started"), output.stdout)
    }

    /// A service that builds its own content state (no call number in its pushes) for apps that
    /// start their own activities and report late: each call is charged only for the tokens the
    /// service had been told before it was sent, so each call's expected pushes are exactly what
    /// the service says it sent, and nothing is missing or extra.
    func testAnUntaggedServiceIsChargedOnlyForTheTokensItKnew() throws {
        let scenario = directory.file("local-matches.yaml")
        try """
        name: local-matches
        cohorts:
          - kind: football
            activities: 300
            groups: 3
            push_to_start: false
        """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let (output, summary, folder) = try profile(
            api: "examples/netmera-lifecycle.yaml",
            scenario: ["--scenario", scenario, "--activities", "300"],
            calls: 12,
            schedule: ["--time-scale", "300"],
            options: ["--report-delay", "1s,8s", "--settle", "2s"],
            serviceOptions: ["--own-content-state"]
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let fanout = try section(summary, "fanout")
        XCTAssertEqual(fanout["missing"] as? Int, 0, "\(fanout)")
        XCTAssertEqual(fanout["extra"] as? Int, 0)
        XCTAssertEqual(fanout["matched_by_tag"] as? Int, 0, "matched by order: the service sent no call number")
        let run = try XCTUnwrap(folder)
        let log = try String(contentsOfFile: "\(run)/sender.stderr.log", encoding: .utf8)
        var sent: [String: [Int]] = [:]
        for match in log.matches(of: /update call \d+ to match-(\d+): (\d+) tokens/) {
            sent[String(match.1), default: []].append(Int(match.2)!)
        }
        var charged: [String: [Int]] = [:]
        let rows = try String(contentsOfFile: "\(run)/calls.csv", encoding: .utf8).split(whereSeparator: \.isNewline)
            .dropFirst()
        for row in rows {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false)
            charged[String(cells[2]), default: []].append(Int(cells[4])!)
        }
        XCTAssertEqual(charged, sent, "each call's expected pushes, by group in order, are what the service sent")
        let total = charged.values.reduce(0) { $0 + $1.reduce(0, +) }
        XCTAssertLessThan(total, 12 * 100, "late reports left some calls short")
    }
}
