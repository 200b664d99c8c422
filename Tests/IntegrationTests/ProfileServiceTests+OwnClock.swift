import Foundation
import TestSupport
import XCTest

/// Services that push on their own clock, profiled over real sockets with the same Python
/// service: a scheduler that starts each class at the time its start call gave and ends each
/// activity at the countdown target its device reported (`service_sends`, no updates), one whose
/// ends come early and late, one that sends a welcome push to every token it registers, and one
/// that coalesces its updates. For each, the books equal the service's own count of what it sent.
extension ProfileServiceTests {
    /// What the service says it sent, by `aps.event`: its last line, `sent by event: end: N, ...`.
    private func sentByEvent(in folder: String?) throws -> [String: Int] {
        let log = try String(contentsOfFile: "\(try XCTUnwrap(folder))/sender.stderr.log", encoding: .utf8)
        let line = try XCTUnwrap(log.firstMatch(of: /sent by event: ([^;]*);/)?.1, "the service's count: \(log)")
        var sent: [String: Int] = [:]
        for match in line.matches(of: /(\w+): (\d+)/) { sent[String(match.1)] = Int(match.2) }
        return sent
    }

    /// The scheduler-driven lifecycle: three classes of 100, starts and ends only.
    private func scheduler(
        _ serviceOptions: [String]
    ) throws -> (
        output: ExternalProgram.Output, summary: [String: Any]?, folder: String?
    ) {
        try profile(
            api: "examples/scheduler-lifecycle.yaml",
            scenario: [
                "--scenario", Self.repository.appendingPathComponent("examples/scheduled-classes.yaml").path,
                "--activities", "300",
            ],
            options: ["--report-delay", "0.2s,0.5s", "--settle", "2s"],
            serviceOptions: serviceOptions
        )
    }

    func testASchedulerIsJudgedAgainstTheTimesItWasToldAndItsOwnCountAgrees() throws {
        let (output, summary, folder) = try scheduler(["--scheduler", "2"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let sent = try sentByEvent(in: folder)
        XCTAssertEqual(sent, ["start": 300, "end": 300], "the service's own count")
        let lifecycle = try section(summary, "lifecycle")
        XCTAssertEqual(lifecycle["start_pushes"] as? [String: Int], ["sent": 300, "accepted": 300, "refused": 0])
        let activities = try XCTUnwrap(lifecycle["activities"] as? [String: Any])
        XCTAssertEqual(activities["started"] as? Int, 300)
        XCTAssertEqual(activities["ended"] as? Int, sent["end"], "every end it sent ended its activity")
        XCTAssertEqual(activities["end_was_first_push"] as? Int, 300, "no update came before any end")
        XCTAssertEqual(activities["updated"] as? Int, 0)
        XCTAssertEqual(activities["started_never_updated"] as? Int, 0, "no update was owed")
        XCTAssertNil(lifecycle["time_to_first_update_ms"], "an end is no update")
        let byKind = try XCTUnwrap(try section(summary, "events")["by_kind"] as? [String: Any])
        let starts = try XCTUnwrap(byKind["start"] as? [String: Any])
        XCTAssertEqual(starts["owed"] as? Int, 300)
        XCTAssertEqual(starts["arrived"] as? Int, sent["start"])
        XCTAssertEqual(starts["early"] as? Int, 300, "it looks 2 s ahead of the time it was told")
        let ends = try XCTUnwrap(byKind["end"] as? [String: Any])
        XCTAssertEqual(ends["owed"] as? Int, 300)
        XCTAssertEqual(ends["arrived"] as? Int, sent["end"])
        XCTAssertEqual(ends["missing"] as? Int, 0)
        XCTAssertEqual(ends["early"] as? Int, 300)
        let lead = try XCTUnwrap(ends["early_lead_ms"] as? [String: Double])
        XCTAssertTrue((1500...2600).contains(lead["p50"] ?? 0), "about 2 s ahead: \(lead)")
        let fanout = try section(summary, "fanout")
        XCTAssertEqual(fanout["missing"] as? Int, 0, "the ends read as arrived, not missing")
        XCTAssertEqual(try section(summary, "sender")["stop"] as? String, "drained")
        XCTAssertEqual(try section(summary, "api")["sent"] as? Int, 0, "no event calls: it ends on its own clock")
        let rows = try String(contentsOfFile: "\(try XCTUnwrap(folder))/calls.csv", encoding: .utf8)
            .split(whereSeparator: \.isNewline).dropFirst()
        XCTAssertEqual(rows.count, 3, "one end moment a class")
        XCTAssertTrue(rows.allSatisfy { $0.hasSuffix(",0,service") }, "owed on the service's clock: \(rows)")
        for topic in ["owed  ", "starts  ", "first update  No update was owed"] {
            XCTAssertTrue(output.stdout.contains("\n\(topic)"), "\(topic): \(output.stdout)")
        }
    }

    /// Ends a second early for even activities and a second late for odd ones: each counted as
    /// it came, against the countdown target.
    func testAServicesEndsComeEarlyAndLateAgainstTheirOwedTimes() throws {
        let (output, summary, folder) = try scheduler(["--scheduler", "0", "--end-skew", "1"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertEqual(try sentByEvent(in: folder)["end"], 300)
        let ends = try XCTUnwrap(
            (try section(summary, "events")["by_kind"] as? [String: Any])?["end"] as? [String: Any]
        )
        XCTAssertEqual(ends["arrived"] as? Int, 300)
        XCTAssertEqual(ends["early"] as? Int, 150, "the even activities")
        XCTAssertEqual(ends["late"] as? Int, 150, "the odd ones")
        let lead = try XCTUnwrap(ends["early_lead_ms"] as? [String: Double])
        XCTAssertTrue((900...1100).contains(lead["p50"] ?? 0), "a second early: \(lead)")
        let lag = try XCTUnwrap(ends["lag_ms"] as? [String: Double])
        XCTAssertTrue((1000...2500).contains(lag["max"] ?? 0), "a second late, plus sending: \(lag)")
    }

    /// A welcome push to every token at its registration, before any call: counted before the
    /// clock by kind, never matched to a call, no duplicate, and the lag is the calls' alone.
    func testWelcomePushesAreCountedBeforeTheClockTaggedOrNot() throws {
        for welcome in ["--welcome", "--welcome-tagged"] {
            let (output, summary, folder) = try profile(
                calls: 6,
                options: ["--settle", "2s"],
                serviceOptions: [welcome]
            )
            XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
            let events = try section(summary, "events")
            XCTAssertEqual(events["before_clock"] as? Int, 300, "\(welcome): \(events)")
            XCTAssertEqual(events["before_clock_by_kind"] as? [String: Int], ["update": 300])
            XCTAssertEqual(events["duplicates"] as? Int, 0)
            XCTAssertEqual(events["extra"] as? Int, 0)
            XCTAssertEqual(events["missing"] as? Int, 0)
            let received = try XCTUnwrap(events["received"] as? Int)
            XCTAssertEqual(received + 300, try sentByEvent(in: folder)["update"], "the calls' pushes and the welcomes")
            let p99 = try XCTUnwrap(try section(summary, "lag")["p99_ms"] as? Double)
            XCTAssertLessThan(p99, 30_000, "measured from the clock's 0, not the machine's uptime")
            XCTAssertEqual(try section(summary, "sender")["stop"] as? String, "drained")
            XCTAssertTrue(
                output.stdout.contains("\nbefore clock  300 pushes came before anything owed them"),
                output.stdout
            )
        }
    }

    /// A service that merges each second's changes into one push an activity: the updates it
    /// merged are superseded, not missing; what arrived is what it sent.
    func testAServiceThatCoalescesIsNotMissingWhatItMerged() throws {
        // Thirty calls a match, about three seconds of it: a few pushes an activity.
        let (output, summary, folder) = try profile(
            calls: 90,
            options: ["--settle", "2s"],
            serviceOptions: ["--coalesce", "1"]
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let events = try section(summary, "events")
        let superseded = try XCTUnwrap(events["superseded"] as? Int)
        let received = try XCTUnwrap(events["received"] as? Int)
        XCTAssertGreaterThan(superseded, 0, "\(events)")
        XCTAssertEqual(events["missing"] as? Int, 0)
        XCTAssertEqual(received + superseded, events["total"] as? Int)
        XCTAssertEqual(received, try sentByEvent(in: folder)["update"], "each push it sent answered one update")
        let fanout = try section(summary, "fanout")
        XCTAssertEqual(fanout["missing"] as? Int, 0)
        XCTAssertEqual(fanout["superseded"] as? Int, superseded)
        XCTAssertNotNil(events["superseded_staleness_ms"])
        let updates = try XCTUnwrap((events["by_kind"] as? [String: Any])?["update"] as? [String: Any])
        let cadence = try XCTUnwrap(updates["cadence_ms"] as? [String: Double], "\(updates)")
        XCTAssertTrue((700...1500).contains(cadence["p50"] ?? 0), "one push an activity a second: \(cadence)")
        XCTAssertEqual(try section(summary, "sender")["stop"] as? String, "drained")
        XCTAssertTrue(output.stdout.contains("were coalesced into a later push of their activity"), output.stdout)
    }
}
