import Foundation
import TestSupport
import XCTest

/// `pushbench budget` as a user runs it: the files it writes agree with each other.
final class BudgetCommandTests: PushbenchTestCase {
    private func onlyRunFolder() throws -> String {
        let runs = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(runs.count, 1, "\(runs)")
        return directory.file(try XCTUnwrap(runs.first))
    }

    private func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    /// `--delivery both`: the same match per token and by broadcast, side by side; the devices
    /// spend the same budget, the sender sends one push per step instead of one per fan.
    func testDeliveryBothSetsTokenAndBroadcastSideBySide() throws {
        let output = try pushbench.run([
            "budget", "--activities", "200", "--delivery", "both", "--bucket", "2", "--per-hour", "1",
            "--no-recommendations", "--reports-dir", directory.path,
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("per token against broadcast"), output.stdout)
        XCTAssertTrue(output.stdout.contains("ends not shown"), output.stdout)
        let rows = try lines(try onlyRunFolder() + "/budget_delivery.csv").map {
            $0.split(separator: ",").map(String.init)
        }
        XCTAssertEqual(rows.first?.prefix(4), ["delivery", "sender_pushes", "broadcasts", "device_pushes"])
        let token = try XCTUnwrap(rows.first { $0.first == "token" })
        let broadcast = try XCTUnwrap(rows.first { $0.first == "broadcast" })
        XCTAssertEqual(token[3], broadcast[3], "the devices receive the same pushes")
        XCTAssertEqual(Array(token[4...8]), Array(broadcast[4...8]), "and spend the same budget")
        XCTAssertEqual(Int(token[1]), Int(token[3]))
        XCTAssertEqual(Int(broadcast[1]), 200 + (Int(broadcast[2]) ?? -1), "200 starts and the broadcasts")
        XCTAssertLessThan(Int(broadcast[1]) ?? .max, (Int(token[1]) ?? 0) / 50)
    }

    func testWritesAConsistentReport() throws {
        let output = try pushbench.run([
            "budget", "--activities", "300", "--preset", "conservative", "--bucket", "2", "--threads", "2",
            "--activities-csv", "all", "--policy-sample", "60", "--key-lag-target", "5s",
            "--reports-dir", directory.path,
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("preset conservative, overridden"), output.stdout)
        XCTAssertTrue(output.stdout.contains("Apple publishes no Live Activity budget numbers"), output.stdout)
        XCTAssertTrue(output.stdout.contains("99% of key events within 5 s"), output.stdout)
        let run = try onlyRunFolder()

        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/budget_summary.json")))
                as? [String: Any]
        )
        let outcomes = try XCTUnwrap(summary["outcomes"] as? [String: Int])
        let pushes = try XCTUnwrap(summary["pushes"] as? [String: Int])
        XCTAssertEqual(outcomes.values.reduce(0, +), pushes["total"])
        XCTAssertEqual(pushes["p10"]! + pushes["p5"]! + pushes["p1"]!, pushes["total"])
        XCTAssertGreaterThan(outcomes["throttled"] ?? 0, 0, "2 updates of burst cannot carry a match's whistles")
        let parameters = try XCTUnwrap(summary["parameters"] as? [String: Any])
        XCTAssertEqual(parameters["burst_updates"] as? Double, 2)
        XCTAssertEqual(parameters["per_hour_updates"] as? Double, 4)
        XCTAssertNotNil(summary["recommendations"] as? [String: Any])
        XCTAssertNotNil(summary["estimate_note"] as? String)

        let timeline = try lines(run + "/budget_timeline.csv")
        let header = timeline[0].components(separatedBy: ",")
        XCTAssertEqual(Array(header.prefix(5)), ["minute", "time_s", "pushes_p10", "pushes_p5", "pushes_p1"])
        XCTAssertTrue(header.contains("activities_exhausted_pct"))
        let rows = timeline.dropFirst().map { $0.components(separatedBy: ",") }
        let pushColumns = 2...4
        let outcomeColumns = 5...11
        var total = 0
        for row in rows {
            let sent = pushColumns.reduce(0) { $0 + Int(row[$1])! }
            XCTAssertEqual(outcomeColumns.reduce(0) { $0 + Int(row[$1])! }, sent, "minute \(row[0])")
            total += sent
        }
        XCTAssertEqual(total, pushes["total"])

        XCTAssertEqual(try lines(run + "/budget_activities.csv").count, 301)
        XCTAssertGreaterThan(try lines(run + "/budget_by_event.csv").count, 5)
        let html = try String(contentsOfFile: run + "/budget.html", encoding: .utf8)
        XCTAssertTrue(html.contains("these figures are estimates"))
        XCTAssertTrue(html.contains("<svg"))
        XCTAssertFalse(html.contains("http://") || html.contains("https://"), "the page fetches nothing")
    }

    func testSweepComparesEveryPresetAndPolicy() throws {
        let output = try pushbench.run([
            "budget", "--activities", "100", "--no-recommendations", "--activities-csv", "none", "--sweep",
            "--reports-dir", directory.path,
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        let run = try onlyRunFolder()
        let sweep = try lines(run + "/budget_sweep.csv")
        XCTAssertEqual(sweep.count, 1 + 3 * 4)
        XCTAssertTrue(sweep.contains { $0.hasPrefix("frequent,all-10,") }, "\(sweep)")
        XCTAssertTrue(output.stdout.contains("conservative  all-5"), output.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: run + "/budget_activities.csv"))
    }

    func testBadInputIsAOneLineError() throws {
        assertCleanFailure(
            try pushbench.run(["budget", "--preset", "lenient", "--reports-dir", directory.path]),
            mentions: "no budget preset 'lenient'; presets: conservative, community, frequent"
        )
        assertCleanFailure(
            try pushbench.run(["budget", "--bucket", "0", "--reports-dir", directory.path]),
            mentions: "--bucket must be a positive number, not 0"
        )
        assertCleanFailure(
            try pushbench.run(["budget", "--activities-csv", "some", "--reports-dir", directory.path]),
            mentions: "--activities-csv must be sample, all or none"
        )
        assertCleanFailure(
            try pushbench.run(["budget", "--scenario", "cricket", "--reports-dir", directory.path]),
            mentions: "no built-in scenario 'cricket'"
        )
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
    }

    func testTrafficRecordedByTheMockReplaysIntoTheBudget() throws {
        let traffic = directory.file("traffic.csv")
        let (mock, origin, certificate) = try startMock(["--record", traffic])
        // The same seed twice: 100 football activities each get a start and a kick-off (priority
        // 10) per round, so every update token gets two priority-10 updates.
        for round in 1...2 {
            let run = try pushbench.run([
                "run", "--endpoint", origin, "--ca-file", certificate, "--activities", "100", "--requests", "200",
                "--seed", "5",
                "--reports-dir", directory.file("runs-\(round)"),
            ])
            XCTAssertEqual(run.status, 0, run.stderr)
            // The mock's /stats are cumulative: each run compares with what it added.
            XCTAssertTrue(
                run.stdout.contains("mock's count   200 answered, 200 accepted: agrees with the client"),
                run.stdout
            )
        }
        mock.interrupt()
        XCTAssertEqual(mock.waitForExit(), 130)
        XCTAssertTrue(mock.output.contains("recorded 400 answered pushes to \(traffic)"), mock.output)
        let recorded = try String(contentsOfFile: traffic, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(recorded.count, 401)
        let first = recorded[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        XCTAssertNotEqual(first[1], "0", "the client's port identifies the connection")
        XCTAssertEqual(first[3...5], ["liveactivity", "com.example.pushbench.push-type.liveactivity", "10"])
        XCTAssertGreaterThan(Int(first[8]) ?? 0, 50, "payload bytes")
        XCTAssertEqual(first[9...11], ["200", "", "start"])
        XCTAssertGreaterThan(Int(first[13]) ?? 0, Int(first[12]) ?? .max, "stale-date after timestamp")
        XCTAssertEqual(recorded.filter { $0.contains(",200,,update,") }.count, 200)

        let reports = directory.file("budget")
        let output = try pushbench.run([
            "budget", "--traffic", traffic, "--bucket", "1", "--per-hour", "1", "--reports-dir", reports,
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        // Each start begins a new activity (replay cannot link it to its update token): 200 of
        // them, shown; and 100 update tokens, whose second kick-off finds the bucket empty.
        XCTAssertTrue(output.stdout.contains("300 activities"), output.stdout)
        let run = try FileManager.default.contentsOfDirectory(atPath: reports)[0]
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: reports + "/" + run + "/budget_summary.json"))
            ) as? [String: Any]
        )
        let outcomes = try XCTUnwrap(summary["outcomes"] as? [String: Int])
        XCTAssertEqual(outcomes["shown"], 300)
        XCTAssertEqual(outcomes["throttled"], 100, "one token, refilled at 1/h: each second update is throttled")
        XCTAssertEqual((summary["input"] as? [String: Any])?["kind"] as? String, "traffic")
    }

    func testATrafficFileWithABadLineNamesIt() throws {
        let header =
            "received_ms,connection,device_token,apns_push_type,apns_topic,apns_priority,apns_expiration,"
            + "apns_collapse_id,payload_bytes,status,reason,event,aps_timestamp_s,stale_date_s,dismissal_date_s"
        let file = try directory.write(
            "traffic.csv",
            Array((header + "\n1,5000,ab,liveactivity,t,ten,,,10,200,,update,1,,\n").utf8)
        )
        assertCleanFailure(
            try pushbench.run(["budget", "--traffic", file, "--reports-dir", directory.path]),
            mentions: "traffic.csv:2: apns_priority 'ten' is not a number"
        )
    }

    func testRunFeedsAcceptedPushesIntoTheBudgetAndReportsIt() throws {
        let output = try pushbench.run([
            "run", "--requests", "300", "--budget-preset", "conservative", "--reports-dir", directory.path,
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(
            output.stdout.contains(
                "budget (conservative preset, scenario clock, an estimate): of 300 accepted pushes, 300 shown"
            ),
            output.stdout
        )
        XCTAssertTrue(
            output.stdout.contains("The run sent only part of the scenario, so the budget covers its pushes up to"),
            output.stdout
        )
        let run = try onlyRunFolder()
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/budget_summary.json")))
                as? [String: Any]
        )
        XCTAssertEqual((summary["input"] as? [String: Any])?["kind"] as? String, "run")
        XCTAssertEqual((summary["run_feed"] as? [String: Any])?["clock"] as? String, "scenario")
        let html = try String(contentsOfFile: run + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<h2>Live Activity budget: accepted pushes of run"), "budget section missing")
        XCTAssertTrue(html.contains("<p class=\"clock\">Modelled on the scenario's clock:"), "no clock line")
        assertCleanFailure(
            try pushbench.run(["run", "--budget-preset", "lenient", "--reports-dir", directory.path]),
            mentions: "--budget-preset: no budget preset 'lenient'"
        )
    }

    func testCtrlCWritesWhatWasSimulatedAndExits130() throws {
        let budget = try RunningProgram(
            pushbench,
            ["budget", "--activities", "2000000", "--no-recommendations", "--reports-dir", directory.path],
            captureStderr: true
        )
        // The state to wait for: the first progress line, once pushes have been simulated.
        XCTAssertNotNil(budget.waitForLine(containing: "M pushes simulated"), budget.output)
        budget.interrupt()
        XCTAssertEqual(budget.waitForExit(), 130, budget.output)
        XCTAssertTrue(budget.output.contains("interrupted: these figures cover the pushes simulated"), budget.output)
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: try onlyRunFolder() + "/budget_summary.json"))
            ) as? [String: Any]
        )
        XCTAssertEqual(summary["interrupted"] as? Bool, true)
        let pushes = try XCTUnwrap((summary["pushes"] as? [String: Int])?["total"])
        XCTAssert(pushes > 0 && pushes < 214_000_000, "\(pushes) pushes")
        XCTAssertEqual((summary["outcomes"] as? [String: Int])?.values.reduce(0, +), pushes)
    }

    /// A budget gate: `compare` on two analyses judges what the policy spends. The same analysis
    /// passes against itself; a starved bucket throttles more activities and shows fewer key
    /// events in time, and fails on both; analyses against other key-lag targets are refused.
    func testCompareJudgesTheBudgetTwoAnalysesSpend() throws {
        func analyse(_ name: String, _ extra: [String]) throws -> String {
            let folder = directory.file(name)
            let output = try pushbench.run(
                [
                    "budget", "--activities", "200", "--no-recommendations", "--activities-csv", "none",
                    "--reports-dir", folder,
                ]
                    + extra
            )
            XCTAssertEqual(output.status, 0, output.stderr)
            let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder).first)
            return folder + "/" + run
        }
        let baseline = try analyse("baseline", [])
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: baseline + "/budget_summary.json"))
            ) as? [String: Any]
        )
        let spent = try XCTUnwrap(summary["spent"] as? [String: Any])
        let pushes = try XCTUnwrap(summary["pushes"] as? [String: Int])
        let hours = try XCTUnwrap(spent["activity_hours"] as? Double)
        XCTAssertGreaterThan(hours, 0)
        XCTAssertEqual(spent["p10_per_activity_hour"] as? Double ?? 0, Double(pushes["p10"]!) / hours, accuracy: 1e-6)
        XCTAssertEqual(spent["key_lag_target_s"] as? Double, 15)

        let same = try pushbench.run(["compare", baseline, baseline])
        XCTAssertEqual(same.status, 0, same.stdout + same.stderr)
        XCTAssertTrue(same.stdout.contains("PASS: the budget a sender's policy spends"), same.stdout)

        let starved = try analyse("starved", ["--bucket", "1", "--per-hour", "1"])
        let junit = directory.file("budget-gate.xml")
        let gate = try pushbench.run(["compare", "--mode", "budget", baseline, starved, "--junit", junit])
        XCTAssertEqual(gate.status, 1, gate.stdout + gate.stderr)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("name=\"throttled_share_percent\">\n    <failure"), xml)
        XCTAssertTrue(xml.contains("name=\"key_events_within_15s_percent\">\n    <failure"), xml)
        XCTAssertTrue(xml.contains("name=\"p10_per_activity_hour\"/>"), "the same pushes were sent: \(xml)")
        XCTAssertEqual(
            try pushbench.run([
                "compare", baseline, starved, "--max-throttled-rise", "100", "--max-key-share-drop", "100",
            ]).status,
            0
        )

        let otherTarget = try analyse("other-target", ["--key-lag-target", "5s"])
        assertCleanFailure(
            try pushbench.run(["compare", baseline, otherTarget]),
            mentions: "analyse both with the same --key-lag-target"
        )
    }
}
