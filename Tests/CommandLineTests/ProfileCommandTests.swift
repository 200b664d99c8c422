import Foundation
import TestSupport
import XCTest

/// `pushbench profile` against real children: PushBench's own sender measured as `/usr/bin/time`
/// measures it, and senders that misbehave, each ended within its bound with its cause said in
/// one line and the books right.
final class ProfileCommandTests: PushbenchTestCase {
    /// The profile's summary, from the one report folder under `reports`.
    private func summary(in reports: String) throws -> [String: Any] {
        let runs = try FileManager.default.contentsOfDirectory(atPath: reports)
        XCTAssertEqual(runs.count, 1, "one report folder: \(runs)")
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(reports)/\(runs[0])/summary.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func profile(
        _ sender: String,
        requests: Int = 50,
        options: [String] = []
    ) throws -> (output: ExternalProgram.Output, seconds: Double, reports: String) {
        let reports = directory.file("reports-\(UUID().uuidString.prefix(8))")
        let began = Date()
        let output = try pushbench.run(
            ["profile", "--requests", String(requests), "--reports-dir", reports] + options
                + ["--", "/bin/sh", "-c", sender],
            timeout: 120
        )
        return (output, Date().timeIntervalSince(began), reports)
    }

    /// The books of a profile: every event handed over is received or missing.
    private func assertBooks(
        _ summary: [String: Any],
        total: Int,
        file: StaticString = #filePath,
        line: UInt = #line
    )
        throws
    {
        let events = try XCTUnwrap(summary["events"] as? [String: Int], file: file, line: line)
        XCTAssertEqual(events["total"], total, file: file, line: line)
        XCTAssertEqual((events["received"] ?? -1) + (events["missing"] ?? -1), total, file: file, line: line)
    }

    func testACommandThatDoesNotExistIsBadInputBeforeAnythingStarts() throws {
        let reports = directory.file("reports")
        let output = try pushbench.run(["profile", "--reports-dir", reports, "--", "no-such-sender-4711"])
        XCTAssertEqual(output.status, 2, output.stderr)
        assertCleanFailure(output, mentions: "no-such-sender-4711: command not found on PATH")
        XCTAssertFalse(FileManager.default.fileExists(atPath: reports), "nothing started, nothing written")
    }

    /// PushBench's own sender as the child, everything from the contract: the profile's CPU is
    /// what `/usr/bin/time` measures of the same child (within 10%), and its pushes are the
    /// child's own count.
    func testPushBenchsOwnSenderIsMeasuredAsTimeMeasuresIt() throws {
        let time = try XCTUnwrap(ExternalProgram.onPath("time").map(\.path) ?? "/usr/bin/time")
        let timing = directory.file("time.txt")
        let child = directory.file("child-reports")
        let sender = """
            exec env -u PUSHBENCH_TOKENS \(time) -f '%U %S' -o \(timing) \(pushbench.path) \
            run --endpoint "$PUSHBENCH_APNS_URL" \
            --ca-file "$PUSHBENCH_CA_FILE" --auth-key "$PUSHBENCH_AUTH_KEY" --key-id "$PUSHBENCH_KEY_ID" \
            --team-id "$PUSHBENCH_TEAM_ID" --requests 600 --no-budget --reports-dir \(child)
            """
        let (output, _, reports) = try profile(sender, requests: 600)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let summary = try summary(in: reports)
        try assertBooks(summary, total: 600)
        let events = try XCTUnwrap(summary["events"] as? [String: Int])
        XCTAssertEqual(events["missing"], 0)
        XCTAssertEqual(events["extra"], 0)
        let childSummary = try self.summary(in: child)
        let childCounts = try XCTUnwrap(childSummary["counts"] as? [String: Int])
        XCTAssertEqual(childCounts["succeeded"], events["received"], "the child's own count")
        let measured = try String(contentsOfFile: timing, encoding: .utf8).split(separator: " ").compactMap {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let timeCPU = measured.reduce(0, +)
        let senderFigures = try XCTUnwrap(summary["sender"] as? [String: Any])
        let profileCPU =
            try XCTUnwrap(senderFigures["cpu_user_s"] as? Double) + XCTUnwrap(senderFigures["cpu_system_s"] as? Double)
        XCTAssertEqual(
            profileCPU,
            timeCPU,
            accuracy: max(0.1 * timeCPU, 0.03),
            "profile \(profileCPU) s, time \(timeCPU) s"
        )
        XCTAssertGreaterThan(try XCTUnwrap(senderFigures["cpu_us_per_push"] as? Double), 0)
        XCTAssertEqual(senderFigures["exit_status"] as? Int, 0)
        let lag = try XCTUnwrap(summary["lag"] as? [String: Any])
        XCTAssertGreaterThan(try XCTUnwrap(lag["max_ms"] as? Double), 0)
        try assertDownstreamCommandsRead(profileFolder: reports, runFolder: child)
    }

    /// `plan` sizes a fleet from a profile's CPU per push (with the round trip it cannot
    /// measure given), and `compare` gates profiles against profiles, never against runs.
    private func assertDownstreamCommandsRead(profileFolder reports: String, runFolder: String) throws {
        let profile = "\(reports)/\(try FileManager.default.contentsOfDirectory(atPath: reports)[0])"
        let run = "\(runFolder)/\(try FileManager.default.contentsOfDirectory(atPath: runFolder)[0])"
        let plan = try pushbench.run(["plan", profile, "--peak", "1000000", "--within", "10s", "--rtt", "150ms"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("a profile of /bin/sh -c"), plan.stdout)
        // The plan counts on the streams the sender kept in flight, as the mock saw them, not on a
        // default it never chose.
        let practices = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: "\(profile)/traffic/practices.json"))
            )
                as? [String: Any]
        )
        let observed = try XCTUnwrap((practices["figures"] as? [String: Any])?["streams_in_flight_p90"] as? Int)
        let summary = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(profile)/summary.json")))
                as? [String: Any]
        )
        XCTAssertEqual((summary["parameters"] as? [String: Any])?["streams_per_connection"] as? Int, observed)
        let streamsRow = plan.stdout.split(separator: "\n").first { $0.hasPrefix("sender streams ") }
        XCTAssertTrue(streamsRow?.contains(" \(observed) in flight a connection on ") == true, plan.stdout)
        let noRTT = try pushbench.run(["plan", profile, "--peak", "1000000", "--within", "10s"])
        XCTAssertEqual(noRTT.status, 2)
        assertCleanFailure(noRTT, mentions: "is a profile: it measured the sender's CPU per push, not its latency")
        let same = try pushbench.run(["compare", "\(profile)/summary.json", "\(profile)/summary.json"])
        XCTAssertEqual(same.status, 0, same.stdout + same.stderr)
        for check in ["pushes_per_s", "lag_p99_us", "cpu_us_per_push", "missing_events_percent"] {
            XCTAssertTrue(same.stdout.contains(check), same.stdout)
        }
        let mixed = try pushbench.run(["compare", "\(profile)/summary.json", "\(run)/summary.json"])
        XCTAssertEqual(mixed.status, 2)
        assertCleanFailure(mixed, mentions: "a profile (pushbench profile) compares with profiles")
    }

    /// The events file (about 400 bytes a push) is the sender's while it runs, then removed,
    /// with its size said both times, unless --keep-events keeps it.
    func testTheEventsFileIsRemovedWhenTheSenderHasGoneUnlessKept() throws {
        let handed = directory.file("handed.jsonl")
        let sender = "wc -l < \"$PUSHBENCH_EVENTS\" > \(handed)"
        for keep in [false, true] {
            let (output, _, reports) = try profile(sender, requests: 40, options: keep ? ["--keep-events"] : [])
            XCTAssertEqual(output.status, 3, "a sender that sends nothing fails: \(output.stderr)")
            XCTAssertEqual(
                try String(contentsOfFile: handed, encoding: .utf8).trimmingCharacters(in: .whitespaces),
                "40\n"
            )
            let folder = "\(reports)/\(try FileManager.default.contentsOfDirectory(atPath: reports)[0])"
            let events = folder + "/events.jsonl"
            XCTAssertEqual(FileManager.default.fileExists(atPath: events), keep, output.stderr)
            XCTAssertTrue(output.stderr.contains("wrote 40 events to \(events) (0.0 MB, "), output.stderr)
            XCTAssertEqual(output.stderr.contains("removed \(events) (0.0 MB); --keep-events keeps it"), !keep)
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/tokens.txt"))
        }
    }

    func testASenderThatExitsAtOnceFailsWithItsLastWords() throws {
        let (output, seconds, reports) = try profile("echo 'config: no such key' >&2; exit 1")
        XCTAssertEqual(output.status, 3, output.stderr)
        XCTAssertTrue(output.stdout.contains("FAILED: the sender exited with status 1"), output.stdout)
        XCTAssertTrue(output.stdout.contains("sender stderr: config: no such key"), output.stdout)
        XCTAssertLessThan(seconds, 15)
        try assertBooks(try summary(in: reports), total: 50)
    }

    func testASenderThatCrashesMidwayFailsNamingTheSignal() throws {
        let (output, _, reports) = try profile("sleep 0.3; kill -SEGV $$")
        XCTAssertEqual(output.status, 3, output.stderr)
        XCTAssertTrue(
            output.stdout.contains("FAILED: the sender died of signal 11 (SIGSEGV), which profile did not send"),
            output.stdout
        )
        let sender = try XCTUnwrap(try summary(in: reports)["sender"] as? [String: Any])
        XCTAssertEqual(sender["exit_status"] as? Int, 128 + 11)
    }

    /// A sender that ignores SIGTERM is killed after the grace: the stop is bounded by
    /// --duration + --grace, plus a tick.
    func testASenderThatIgnoresSIGTERMIsKilledAfterTheGrace() throws {
        let (output, seconds, reports) = try profile(
            "trap '' TERM; sleep 60",
            options: ["--duration", "1s", "--grace", "1s"]
        )
        XCTAssertEqual(output.status, 3, output.stderr)
        XCTAssertTrue(output.stdout.contains("FAILED: the sender sent nothing"), output.stdout)
        XCTAssertLessThan(seconds, 12, "duration 1 s + lead + grace 1 s, bounded")
        let sender = try XCTUnwrap(try summary(in: reports)["sender"] as? [String: Any])
        XCTAssertEqual(sender["stop"] as? String, "duration")
        XCTAssertEqual(sender["exit_status"] as? Int, 128 + 9, "SIGKILL")
        XCTAssertLessThan(try XCTUnwrap(sender["stop_s"] as? Double), 3)
    }

    /// Ctrl-C ends the sender (SIGTERM, SIGKILL after the grace for one that ignores it),
    /// writes what was measured, and exits 130.
    func testCtrlCEndsTheSenderWritesWhatWasMeasuredAndExits130() throws {
        let reports = directory.file("reports")
        let marker = "62.4711"
        let profile = try RunningProgram(
            pushbench,
            [
                "profile", "--requests", "50", "--grace", "1s", "--reports-dir", reports, "--", "/bin/sh", "-c",
                "trap '' TERM; exec sleep \(marker)",
            ],
            captureStderr: true
        )
        XCTAssertNotNil(profile.waitForLine(containing: "started /bin/sh"), profile.output)
        let interrupted = Date()
        profile.interrupt()
        XCTAssertEqual(profile.waitForExit(timeout: 30), 130, profile.output)
        XCTAssertLessThan(Date().timeIntervalSince(interrupted), 5, "grace 1 s, then SIGKILL at the next tick")
        let sender = try XCTUnwrap(try summary(in: reports)["sender"] as? [String: Any])
        XCTAssertEqual(sender["stop"] as? String, "interrupted")
        XCTAssertEqual(sender["exit_status"] as? Int, 128 + 9)
        let left = try ExternalProgram(path: "/usr/bin/pgrep").run(["-f", "sleep \(marker)"])
        XCTAssertEqual(left.stdout, "", "the sender was ended")
    }

    /// A sender configured with its key's content, not its path, finds it in
    /// PUSHBENCH_AUTH_KEY_PEM as it is and in PUSHBENCH_AUTH_KEY_BASE64 encoded; neither is
    /// printed.
    func testTheKeysContentIsHandedAsPEMAndAsBase64() throws {
        let found = directory.file("found.txt")
        let (output, _, _) = try profile(
            """
            printf %s "$PUSHBENCH_AUTH_KEY_PEM" | cmp -s - "$PUSHBENCH_AUTH_KEY" && echo pem >> \(found)
            printf %s "$PUSHBENCH_AUTH_KEY_BASE64" | base64 -d | cmp -s - "$PUSHBENCH_AUTH_KEY" && echo base64 >> \(found)
            """
        )
        XCTAssertEqual(try String(contentsOfFile: found, encoding: .utf8), "pem\nbase64\n", output.stdout)
        XCTAssertFalse((output.stdout + output.stderr).contains("PRIVATE KEY"))
    }

    /// A SIGKILL of pushbench mid-profile gives it no chance to end its sender: the kernel
    /// does (PR_SET_PDEATHSIG), and the group's watchdog ends what the sender started too.
    func testASenderDiesWithAKilledPushbenchAndSoDoWhatItStarted() throws {
        let child = "63.4711"
        let grandchild = "63.4712"
        let profile = try RunningProgram(
            pushbench,
            [
                "profile", "--requests", "50", "--reports-dir", directory.file("reports"), "--", "/bin/sh", "-c",
                "sleep \(grandchild) & exec sleep \(child)",
            ],
            captureStderr: true
        )
        XCTAssertNotNil(profile.waitForLine(containing: "started /bin/sh"), profile.output)
        let pgrep = ExternalProgram(path: "/usr/bin/pgrep")
        for marker in [child, grandchild] {
            XCTAssertTrue(waitUntil { !((try? pgrep.run(["-f", "^sleep \(marker)"]).stdout) ?? "").isEmpty }, marker)
        }
        profile.killAtOnce()
        _ = profile.waitForExit(timeout: 30)
        for marker in [child, grandchild] {
            XCTAssertTrue(
                waitUntil { ((try? pgrep.run(["-f", "^sleep \(marker)"]).stdout) ?? "x").isEmpty },
                "sleep \(marker) outlived pushbench"
            )
        }
    }

    /// Whether `condition` held within 5 s, looked at every 50 ms.
    private func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// A grandchild that outlives the sender is still reaped by profile (a child subreaper):
    /// its CPU is counted and it is ended.
    func testAGrandchildThatOutlivesItsParentIsCountedAndEnded() throws {
        let marker = "61.4711"
        let (output, seconds, reports) = try profile(
            "(i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done; exec sleep \(marker)) & sleep 1.5; exit 0"
        )
        XCTAssertEqual(output.status, 3, "it sent nothing: \(output.stdout)")
        XCTAssertLessThan(seconds, 15)
        let sender = try XCTUnwrap(try summary(in: reports)["sender"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(sender["processes"] as? Int), 2)
        XCTAssertGreaterThan(try XCTUnwrap(sender["cpu_user_s"] as? Double), 0.2, "the grandchild's busy loop")
        let left = try ExternalProgram(path: "/usr/bin/pgrep").run(["-f", "sleep \(marker)"])
        XCTAssertEqual(left.stdout, "", "the grandchild was ended")
    }

    /// Pushes to tokens the scenario does not have are extra, and the scenario's events missing.
    func testPushesToTokensOutsideTheScenarioAreExtra() throws {
        let sender = """
            exec env -u PUSHBENCH_TOKENS \(pushbench.path) run \
            --endpoint "$PUSHBENCH_APNS_URL" --ca-file "$PUSHBENCH_CA_FILE" \
            --auth-key "$PUSHBENCH_AUTH_KEY" --key-id "$PUSHBENCH_KEY_ID" --team-id "$PUSHBENCH_TEAM_ID" \
            --requests 30 --seed 4711 --no-budget --reports-dir \(directory.file("child"))
            """
        let (output, _, reports) = try profile(sender, requests: 40)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(
            output.stdout.contains("0 of 40 events arrived, 40 never did, and 30 pushes matched no event."),
            output.stdout
        )
        let summary = try summary(in: reports)
        try assertBooks(summary, total: 40)
        XCTAssertEqual((summary["events"] as? [String: Int])?["extra"], 30)
        XCTAssertTrue(
            output.stdout.contains("None of the 30 accepted pushes was an event of the scenario"),
            "the budget line agrees with the accepted count: \(output.stdout)"
        )
    }

    /// h2load as the sender, from the repository's example.
    private var h2loadSender: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/h2load_sender.sh").path
    }

    func testASenderWhosePushesAreAllRefusedFailsNamingTheReasonAndWhatItMeans() throws {
        let (output, _, reports) = try profile(
            "PUSHBENCH_TOPIC=com.example.pushbench exec \(h2loadSender)",
            requests: 20
        )
        XCTAssertEqual(output.status, 3, output.stdout + output.stderr)
        let words = output.stdout + output.stderr
        XCTAssertTrue(
            words.contains("the mock accepted none of the 20 pushes it answered: 20 were DeviceTokenNotForTopic"),
            words
        )
        XCTAssertTrue(words.contains("check the service's topic against --bundle-id"), words)
        XCTAssertEqual(try summary(in: reports)["nothing_succeeded"] as? Bool, true)
    }

    /// An answer counts when it is written: a sender that gives up on slow answers sees them
    /// time out, and the profile books them as answers never written, not as accepted, so both
    /// sides' counts agree and the refusals are their reasons' sum.
    func testAnAnswerCountsWhenWrittenAndOneNeverWrittenIsAnAnswerUnsent() throws {
        let child = directory.file("child")
        let sender = """
            exec env -u PUSHBENCH_TOKENS \(pushbench.path) run --endpoint "$PUSHBENCH_APNS_URL" \
            --ca-file "$PUSHBENCH_CA_FILE" --auth-key "$PUSHBENCH_AUTH_KEY" --key-id "$PUSHBENCH_KEY_ID" \
            --team-id "$PUSHBENCH_TEAM_ID" --requests 60 --timeout 1s --no-budget --reports-dir \(child)
            """
        // Half the answers at once, half after 3 s: none near the sender's 1 s deadline.
        let (output, _, reports) = try profile(
            sender,
            requests: 60,
            options: ["--latency", "empirical:50=2ms,51=3s,100=3s", "--error-rate", "TooManyRequests=0.2"]
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let summary = try summary(in: reports)
        XCTAssertEqual(summary["accounting_balanced"] as? Bool, true)
        let counts = try XCTUnwrap(summary["counts"] as? [String: Int])
        let unsent = try XCTUnwrap(counts["answers_unsent"])
        XCTAssertGreaterThan(unsent, 0, "the slow answers")
        XCTAssertGreaterThan(counts["succeeded"] ?? 0, 0, "the quick answers")
        XCTAssertEqual(counts["sent"], 60)
        let reasons = try XCTUnwrap(summary["rejected_by_reason"] as? [String: Int])
        XCTAssertEqual(counts["rejected"], reasons.values.reduce(0, +))
        let senders = try XCTUnwrap(try self.summary(in: child)["counts"] as? [String: Int])
        XCTAssertEqual(senders["succeeded"], counts["succeeded"], "answered 200, on both sides")
        XCTAssertEqual(senders["rejected"], counts["rejected"], "answered 429, on both sides")
        XCTAssertEqual(senders["timed_out"], unsent, "the sender's timeouts are the answers never written")
        XCTAssertTrue(output.stdout.contains("decided but never written"), output.stdout)
        let accepted = try XCTUnwrap((summary["sender"] as? [String: Any])?["accepted"] as? Int)
        XCTAssertEqual(accepted, counts["succeeded"], "the speed line's accepted is the answers written")
    }

    /// A sender that keeps one push in flight, against answers held 40 ms, is capped by its own
    /// concurrency, and `plan` sizes it by processes of it as it is, not by cores.
    func testASequentialSenderIsPlannedByItsConcurrencyNotItsCPU() throws {
        let sender = """
            exec env -u PUSHBENCH_TOKENS \(pushbench.path) run --endpoint "$PUSHBENCH_APNS_URL" \
            --ca-file "$PUSHBENCH_CA_FILE" --auth-key "$PUSHBENCH_AUTH_KEY" --key-id "$PUSHBENCH_KEY_ID" \
            --team-id "$PUSHBENCH_TEAM_ID" --requests 100 --connections 1 --streams 1 --no-budget \
            --reports-dir \(directory.file("child"))
            """
        let (output, _, reports) = try profile(sender, requests: 100, options: ["--latency", "fixed:40ms"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(output.stdout.contains("concurrency-capped"), output.stdout)
        let folder = "\(reports)/\(try FileManager.default.contentsOfDirectory(atPath: reports)[0])"
        XCTAssertEqual((try summary(in: reports)["sender"] as? [String: Any])?["in_flight_p90"] as? Int, 1)
        let json = directory.file("plan.json")
        let plan = try pushbench.run(
            ["plan", folder, "--peak", "10000", "--within", "60s", "--rtt", "40ms", "--json", json]
        )
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(
            plan.stdout.contains("sender concurrency, not CPU: one process of it keeps 1 in flight"),
            plan.stdout
        )
        let document = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        )
        let figures = try XCTUnwrap(document["plan"] as? [String: Any])
        XCTAssertEqual(figures["binding_constraint"] as? String, "sender concurrency")
        XCTAssertEqual(figures["processes"] as? Int, 10, "167/s ÷ (25/s × 0.7)")
    }

    func testTheSummaryNamesTheBundleIDInForce() throws {
        let (output, _, reports) = try profile(
            "exec \(h2loadSender)",
            requests: 20,
            options: ["--bundle-id", "com.acme.scores"]
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let summary = try summary(in: reports)
        XCTAssertEqual(summary["kind"] as? String, "profile")
        let parameters = try XCTUnwrap(summary["parameters"] as? [String: Any])
        XCTAssertEqual(parameters["bundle_id"] as? String, "com.acme.scores")
    }
}
