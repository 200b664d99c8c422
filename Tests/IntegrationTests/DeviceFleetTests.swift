import ArrivalMatching
import Foundation
import RequestFiles
import Synchronization
import Workload
import XCTest

@testable import DeviceEmulation
@testable import ServiceDriver

/// The devices PushBench plays behind the mock, in process: what starts an activity, what a
/// device drops and why, rotations, dismissals, the limit of concurrent activities, the 410s
/// that come after a token dies, and the requests the devices send. No sockets: the pushes are
/// the records the mock would hand the fleet.
final class DeviceFleetTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private let clock = ProfileClock()

    /// Two football matches of three fans each, started per group, on the scenario's clock
    /// (started now unless `clockStarted` is false).
    private func fleet(_ settings: DeviceSettings = DeviceSettings(), clockStarted: Bool = true) throws -> DeviceFleet {
        let workload = try ServiceWorkload(
            scenario: Scenario(name: "matches", cohorts: [Scenario.Cohort(kind: .football, activities: 6, groups: 2)]),
            perActivity: false,
            requests: nil,
            timing: .scenarioTime(scale: 60),
            startsPerActivity: false
        )
        let fleet = DeviceFleet(workload: workload, settings: settings, clock: clock)
        if clockStarted { fleet.start(atNs: clock.nowNs) }
        return fleet
    }

    /// A device's report names what its start push carried (`{{start.attributes.NAME}}`, ...):
    /// the members of the start it accepted, `null` before any; a file whose starts are local
    /// is refused for naming them.
    func testAReportNamesWhatTheStartPushItAcceptedCarried() throws {
        let report = """
            token_report:
              url: http://127.0.0.1:8123/register
              body:
                group: "{{start.attributes.groupID}}"
                score: "{{start.content_state.homeScore}}"
                at: "{{start.aps.timestamp}}"
                title: "{{start.aps.alert}}"
            """
        let start = "start:\n  url: http://127.0.0.1:8123/start\n  body: {g: \"{{group}}\"}\n"
        let event = "event:\n  url: http://127.0.0.1:8123/e\n  body: {g: \"{{group}}\"}\n"
        let file = try APIFile(text: report + "\n" + start + event, path: "api.yaml", environment: [:])
        let base = try fleet()
        let fleet = DeviceFleet(
            workload: base.workload,
            settings: DeviceSettings(),
            clock: clock,
            keepsStartPushes: true
        )
        fleet.start(atNs: clock.nowNs)
        func body() throws -> [String: Any] {
            let request = try XCTUnwrap(
                file.deviceRequest(.tokenReport(activity: 4, rotated: false), of: fleet, intendedNanos: 0)
            )
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        }
        XCTAssertTrue(try body()["group"] is NSNull, "no start accepted yet")
        push(
            fleet,
            fleet.workload.pushToStartToken(of: 4),
            self.start(attributes: #"{"groupID":1}"#, state: #"{"homeScore":2,"awayScore":0,"minute":0,"period":1}"#)
        )
        let reported = try body()
        XCTAssertEqual(reported["group"] as? Int, 1)
        XCTAssertEqual(reported["score"] as? Int, 2)
        XCTAssertEqual(reported["at"] as? Int, 1)
        XCTAssertEqual(
            reported["title"] as? [String: String],
            ["title": "Kick-off", "body": "on"],
            "an object as JSON"
        )
        XCTAssertEqual(
            APIFile.refusal(of: report + "\n" + event, environment: [:]),
            "api.yaml:4: token_report uses {{start.…}}: this file has no start request, so its activities start locally and no start push carries anything"
        )
        XCTAssertTrue(
            APIFile.refusal(
                of: report.replacingOccurrences(of: "start.aps.timestamp", with: "start.payload.x") + "\n" + start
                    + event,
                environment: [:]
            )
            .contains("{{start.payload.x}}: a member of the start push is {{start.attributes.NAME}}")
        )
    }

    /// A start push as a service builds it, with parts to break.
    private func start(
        type: String = "MatchAttributes",
        attributes: String = #"{"groupID":0}"#,
        state: String = #"{"homeScore":0,"awayScore":0,"minute":0,"period":1}"#,
        alert: Bool = true,
        event: String = "start"
    ) -> [UInt8] {
        let alertMember = alert ? #","alert":{"title":"Kick-off","body":"on"}"# : ""
        return Array(
            #"{"aps":{"event":"\#(event)","timestamp":1,"content-state":\#(state),"attributes-type":"\#(type)","attributes":\#(attributes)\#(alertMember)}}"#
                .utf8
        )
    }

    @discardableResult
    private func push(
        _ fleet: DeviceFleet,
        _ token: String,
        _ body: [UInt8],
        event: LifecyclePhase? = nil,
        status: Int = 200
    ) -> Bool {
        fleet.arrived(TrafficRecord.arrival(token, status: status, event: event).arriving(at: clock.nowNs, body: body))
    }

    func testAValidStartStartsTheActivityAndItsDeviceReportsTheTokenItMinted() throws {
        let fleet = try fleet()
        let token = fleet.workload.pushToStartToken(of: 1)
        XCTAssertFalse(push(fleet, token, start()), "a start is the fleet's, not the arrival book's")
        let state = fleet.snapshot
        XCTAssertNotNil(state.devices[1].activity)
        XCTAssertEqual(
            state.startFanout(workload: fleet.workload).fanouts[0].arrived,
            1,
            "booked under its group's start call"
        )
        XCTAssertEqual(state.drops, [:])
        let later = clock.nowNs + 3_600_000_000_000
        XCTAssertEqual(fleet.takeDue(nowNs: later).map(\.request), [.tokenReport(activity: 1, rotated: false)])
    }

    /// The devices' thread sleeps until its next action is due: a start whose token report is
    /// the earliest action wakes it, and nothing does once its waker is gone.
    func testAStartsReportDueFirstWakesTheDevicesThread() throws {
        let fleet = try fleet()
        fleet.wakeIfSooner()  // what the clock's start scheduled, before anyone listened
        let wakes = Mutex(0)
        fleet.onSoonerAction { wakes.withLock { $0 += 1 } }
        XCTAssertNil(fleet.nextActionNs, "nothing waits")
        push(fleet, fleet.workload.pushToStartToken(of: 1), start())
        XCTAssertEqual(wakes.withLock { $0 }, 1, "its report is now the earliest action")
        XCTAssertNotNil(fleet.nextActionNs)
        fleet.onSoonerAction(nil)
        push(fleet, fleet.workload.pushToStartToken(of: 2), start())
        XCTAssertEqual(wakes.withLock { $0 }, 1, "no wake after the waker is gone")
    }

    /// A service that starts an activity as soon as it learns a push-to-start token sends its
    /// start before the operator's first call, before the scenario's clock: the device starts,
    /// the start is not put down to the call, and its user's close is planned once the clock runs.
    func testAStartBeforeTheScenarioClockStartsTheActivityOutsideItsCallsFanOut() throws {
        var settings = DeviceSettings()
        settings.dismissShare = 1
        let fleet = try fleet(settings, clockStarted: false)
        push(fleet, fleet.workload.pushToStartToken(of: 1), start())
        var state = fleet.snapshot
        guard case .running(let activity) = state.devices[1].life else {
            return XCTFail("started: \(state.devices[1].life)")
        }
        XCTAssertFalse(activity.updated)
        XCTAssertEqual(
            state.startFanout(workload: fleet.workload).fanouts[0].arrived,
            0,
            "no call had been sent: not its fan-out"
        )
        XCTAssertEqual(state.startsBeforeTheirCall, 1)
        XCTAssertNil(state.clockZeroNs)
        fleet.start(atNs: clock.nowNs)
        state = fleet.snapshot
        XCTAssertNotNil(state.clockZeroNs)
        let requests = fleet.takeDue(nowNs: clock.nowNs + 3_600_000_000_000).map(\.request)
        XCTAssertTrue(requests.contains(.close(activity: 1)), "its user's close, planned at the clock: \(requests)")
        XCTAssertTrue(requests.contains(.tokenReport(activity: 1, rotated: false)), "\(requests)")
    }

    /// APNs refused these: no device sees them, whatever the status. A 410 the fleet did not
    /// cause (the mock's token hygiene) starts nothing and shows nothing.
    func testOnlyAnAcceptedPushReachesADevice() throws {
        let fleet = try fleet()
        let startToken = fleet.workload.pushToStartToken(of: 0)
        for status in [410, 429, 400] { push(fleet, startToken, start(), status: status) }
        XCTAssertEqual(fleet.snapshot.devices[0].life, .waiting, "a refused start starts nothing")
        XCTAssertEqual(fleet.snapshot.startPushes, 0)
        push(fleet, startToken, start())
        let update = fleet.workload.updateToken(of: 0)
        for status in [410, 429, 500] { push(fleet, update, [], event: .update, status: status) }
        var state = fleet.snapshot
        XCTAssertEqual(state.updatesShown, 0, "a refused update shows nothing")
        XCTAssertEqual(state.devices[0].activity?.updated, false)
        XCTAssertEqual(state.drops, [:], "and no device dropped it: it never reached one")
        push(fleet, update, [], event: .end, status: 410)
        XCTAssertNil(fleet.snapshot.devices[0].endedNs, "a refused end ends nothing")
        push(fleet, update, [], event: .update)
        state = fleet.snapshot
        XCTAssertEqual(state.updatesShown, 1)
        XCTAssertEqual(state.devices[0].activity?.updated, true)
    }

    /// The fleet's own 410, to a token whose activity ended past the unregister delay, is the
    /// fleet's answer: booked as the drop its device would have made of it.
    func testTheFleetsOwn410IsBookedWithItsCause() throws {
        var settings = DeviceSettings()
        settings.unregisterDelay = .zero
        let fleet = try fleet(settings)
        push(fleet, fleet.workload.pushToStartToken(of: 0), start())
        let update = fleet.workload.updateToken(of: 0)
        push(fleet, update, [], event: .end)
        XCTAssertNotNil(fleet.unregisteredSince(Substring(update)))
        push(fleet, update, [], event: .update, status: 410)
        XCTAssertEqual(fleet.snapshot.drops, [.afterEnd: 1])
    }

    /// `--rotation-rate` is the share of the activities not yet rotated that rotate within
    /// each minute: at 0.5, half in the first minute and three quarters by the second.
    func testTheRotationRateIsAShareAMinute() {
        var settings = DeviceSettings()
        let units = (0..<10_000).map { (Double($0) + 0.5) / 10_000 }
        func share(rotatedWithin minutes: Double) -> Double {
            let within = units.compactMap(settings.rotationAfterNs).filter { Double($0) <= minutes * 60e9 }
            return Double(within.count) / Double(units.count)
        }
        XCTAssertNil(settings.rotationAfterNs(0.5), "no rotation by default")
        settings.rotationSharePerMinute = 0.5
        XCTAssertEqual(share(rotatedWithin: 1), 0.5, accuracy: 0.001)
        XCTAssertEqual(share(rotatedWithin: 2), 0.75, accuracy: 0.001)
        settings.rotationSharePerMinute = 1
        XCTAssertEqual(share(rotatedWithin: 1), 1, "every one within the first minute, not 63%")
        settings.rotationSharePerMinute = 1e-9
        XCTAssertNotNil(settings.rotationAfterNs(0.999_999), "a rare rotation far off does not overflow")
    }

    func testStartsADeviceCannotShowStartNothingAndAreCountedByCause() throws {
        let fleet = try fleet()
        let token = fleet.workload.pushToStartToken(of: 0)
        push(fleet, token, start(type: "OrderAttributes"))
        push(fleet, token, start(attributes: #"{"matchID":"x"}"#))
        push(fleet, token, start(state: #"{"homeScore":0}"#))
        push(fleet, token, start(alert: false))
        push(fleet, token, start(event: "update"))
        let state = fleet.snapshot
        XCTAssertEqual(state.devices[0].life, .waiting, "nothing started")
        XCTAssertEqual(state.drops, [.wrongAttributesType: 1, .undecodableStart: 4])
        XCTAssertEqual(fleet.takeDue(nowNs: clock.nowNs + 3_600_000_000_000).count, 0, "and nothing to report")
    }

    /// A team's own app: a start shows when it names the app's type and carries the members
    /// the app needs, whatever their values; PushBench's built-in type is the wrong one then.
    func testDevicesRunTheTeamsOwnAppWhenTheFileNamesIt() throws {
        let workload = try fleet().workload
        let app = DeviceApp(
            attributesType: "TigerDuckActivityAttributes",
            attributes: ["gameID"],
            contentState: ["homeScore", "status"]
        )
        let fleet = DeviceFleet(workload: workload, settings: DeviceSettings(), app: app, clock: clock)
        fleet.start(atNs: clock.nowNs)
        let tiger = start(
            type: "TigerDuckActivityAttributes",
            attributes: #"{"gameID":"g-1"}"#,
            state: #"{"homeScore":0,"status":"LIVE"}"#
        )
        push(fleet, workload.pushToStartToken(of: 0), tiger)
        push(fleet, workload.pushToStartToken(of: 1), start())
        push(
            fleet,
            workload.pushToStartToken(of: 2),
            start(type: "TigerDuckActivityAttributes", state: #"{"homeScore":0}"#)
        )
        let state = fleet.snapshot
        XCTAssertNotNil(state.devices[0].activity, "the app's own start shows")
        XCTAssertEqual(state.drops, [.wrongAttributesType: 1, .undecodableStart: 1])
    }

    func testADeviceStartsNoMoreActivitiesThanItsLimit() throws {
        var settings = DeviceSettings()
        settings.activityLimit = 2
        let fleet = try fleet(settings)
        let token = fleet.workload.pushToStartToken(of: 2)
        for _ in 0..<3 { push(fleet, token, start()) }
        let state = fleet.snapshot
        XCTAssertEqual(state.extraStarts, 1, "a second start to a running device starts a second activity")
        XCTAssertEqual(state.drops, [.overActivityLimit: 1])
        XCTAssertEqual(
            state.startFanout(workload: fleet.workload).fanouts[0].arrived,
            1,
            "the start fan-out counts each device once"
        )
    }

    func testUpdatesReachAStartedActivityUntilItEndsAndTheBookSeesItsFirstToken() throws {
        var settings = DeviceSettings()
        settings.unregisterDelay = .zero
        let fleet = try fleet(settings)
        let update = fleet.workload.updateToken(of: 0)
        push(fleet, update, [], event: .update)
        XCTAssertEqual(fleet.snapshot.drops, [.unknownToken: 1], "no activity holds the token before its start")
        push(fleet, fleet.workload.pushToStartToken(of: 0), start())
        XCTAssertTrue(push(fleet, update, [], event: .update), "an update is the arrival book's")
        push(fleet, update, [], event: .end)
        push(fleet, update, [], event: .update)
        let state = fleet.snapshot
        XCTAssertEqual(state.updatesShown, 1, "the end ended it; it is not an update")
        XCTAssertEqual(state.timeToFirstUpdate.totalCount, 1)
        XCTAssertEqual(state.drops, [.unknownToken: 1, .afterEnd: 1])
        XCTAssertNotNil(fleet.unregisteredSince(Substring(update)), "APNs answers 410 once the delay has passed")
        XCTAssertNil(fleet.unregisteredSince(Substring(fleet.workload.updateToken(of: 1))), "a live token is not")
    }

    func testARotatedTokenKeepsWorkingForItsGraceThenIsDroppedWhileTheNewOneWorks() throws {
        var settings = DeviceSettings()
        settings.rotationGrace = .zero
        let fleet = try fleet(settings)
        push(fleet, fleet.workload.pushToStartToken(of: 3), start())
        let old = fleet.workload.updateToken(of: 3)
        let new = fleet.workload.rotatedUpdateToken(of: 3)
        push(fleet, new, [], event: .update)
        XCTAssertEqual(
            fleet.snapshot.drops,
            [.unknownToken: 1],
            "activity 3 draws no rotation: its next token is no one's yet"
        )
        fleet.state.withLock { _ = $0.actions.push(DeviceAction(dueNs: clock.nowNs, activity: 3, kind: .rotate)) }
        XCTAssertTrue(fleet.takeDue(nowNs: clock.nowNs).isEmpty, "the rotated token is reported after the delay")
        XCTAssertTrue(fleet.hasRotated(3))
        let reports = fleet.takeDue(nowNs: clock.nowNs + 3_600_000_000_000).map(\.request)
        XCTAssertTrue(reports.contains(.tokenReport(activity: 3, rotated: true)), "\(reports)")
        push(fleet, old, [], event: .update)
        XCTAssertEqual(fleet.snapshot.drops, [.unknownToken: 1, .rotatedOut: 1])
        push(fleet, new, [], event: .update)
        XCTAssertEqual(fleet.snapshot.updatesShown, 1, "the rotated token shows")
    }

    func testADeviceThatReissuesItsPushToStartTokenStartsNothingFromTheOldOne() throws {
        var settings = DeviceSettings()
        settings.startTokenReissueShare = 1
        let fleet = try fleet(settings)
        let old = fleet.workload.pushToStartToken(of: 5)
        push(fleet, old, start())
        let requests = fleet.takeDue(nowNs: clock.nowNs + 3_600_000_000_000).map(\.request)
        XCTAssertTrue(requests.contains(.startToken(activity: 5, reissued: true)), "\(requests)")
        XCTAssertNotEqual(fleet.pushToStartToken(of: 5, reissued: true), old)
        push(fleet, old, start())
        XCTAssertEqual(fleet.snapshot.drops, [.stalePushToStartToken: 1])
    }

    /// The outcome of `fleet`, whose service's pushes were matched in `book`.
    private func outcome(_ fleet: DeviceFleet, _ book: ArrivalBook) throws -> LifecycleOutcome {
        LifecycleOutcome(
            file: try APIFile(
                path: Self.repository.appendingPathComponent("examples/netmera-lifecycle.yaml").path,
                environment: ["PUSHBENCH_SERVICE_PORT": "8123", "NETMERA_API_KEY": "k-1"]
            ),
            starts: APIAnswers(),
            devices: DeviceReporter.Answers(),
            settings: fleet.settings,
            fleet: fleet.snapshot,
            workload: fleet.workload,
            arrivals: book,
            emulationCPUSeconds: 0
        )
    }

    /// Hands a push to `token` to the devices and then to the book, as the mock's recorder does.
    private func deliver(_ fleet: DeviceFleet, _ book: ArrivalBook, _ token: String, status: Int = 200, atNs: Int64) {
        let body = Array(#"{"aps":{"event":"update","content-state":{}}}"#.utf8)
        let push = TrafficRecord.arrival(token, status: status, event: .update)
        if fleet.arrived(push.arriving(at: atNs, body: body)) {
            book.arrived(push.arriving(at: atNs, body: body))
        }
    }

    /// Sends the first two calls of each group at `atNs`, and the service's pushes for them to
    /// the activities in `reaching`, each answered with its status there.
    private func sendCalls(
        _ fleet: DeviceFleet,
        _ book: ArrivalBook,
        atNs: Int64,
        reaching activities: [Int: Int]
    ) {
        for group in 0..<2 {
            let calls = fleet.workload.calls.enumerated().filter { $0.element.group == group }.prefix(2)
            for (offset, (index, call)) in calls.enumerated() {
                let sentNs = atNs + Int64(offset) * 1_000_000
                book.sent(call: index, atNs: sentNs)
                for activity in call.activities {
                    guard let status = activities[activity] else { continue }
                    deliver(fleet, book, fleet.workload.updateToken(of: activity), status: status, atNs: sentNs + 1000)
                }
            }
        }
    }

    /// Every cause of an activity never updated, each from its own evidence: what the device did,
    /// what the service was told and answered, which calls owed its token a push, what came and
    /// what APNs answered.
    func testEachActivityNeverUpdatedIsPutDownToTheCauseItsEvidenceShows() throws {
        var settings = DeviceSettings()
        settings.rotationGrace = .zero
        let fleet = try fleet(settings)
        let book = fleet.workload.arrivalBook()
        let t = clock.nowNs
        book.start(atNs: t)
        for activity in 0..<6 { push(fleet, fleet.workload.pushToStartToken(of: activity), start()) }
        fleet.state.withLock { $0.plan.neverReports[1] = true }
        fleet.answered(.tokenReport(activity: 0, rotated: false), succeeded: false, atNs: t)
        for activity in [2, 3, 4, 5] {
            fleet.answered(.tokenReport(activity: activity, rotated: false), succeeded: true, atNs: t)
            book.learned(token: fleet.workload.updateToken(of: activity), atNs: t)
        }
        fleet.state.withLock {
            $0.actions.push(DeviceAction(dueNs: t + 1, activity: 2, kind: .dismiss))
            $0.actions.push(DeviceAction(dueNs: t + 2, activity: 4, kind: .rotate))
        }
        _ = fleet.takeDue(nowNs: t + 2)
        // Group 1's calls reach 3 (refused 429) and 4 (to its rotated-out token), not 5.
        sendCalls(fleet, book, atNs: t + 10, reaching: [3: 429, 4: 200])
        let outcome = try outcome(fleet, book)
        let calls = book.calls
        XCTAssertEqual(
            (0..<6).map { outcome.neverUpdatedCause(of: $0, calls: calls) },
            [.reportFailed, .neverReported, .endedBeforeUpdate, .apnsRefused, .tokenRotated, .reportLostByService]
        )
        XCTAssertEqual(fleet.snapshot.drops, [.rotatedOut: 2], "the device dropped both pushes to 4's old token")
    }

    /// The calls that owed a token a push reached no one: the service fell behind, it did not
    /// lose one token. A token reported after the last call was owed nothing; one whose report
    /// was never answered, nothing either; one never sent was never the service's to answer.
    func testABackloggedServiceAndLateReportsAreNamedSo() throws {
        let fleet = try fleet()
        let book = fleet.workload.arrivalBook()
        let t = clock.nowNs
        book.start(atNs: t)
        for activity in 0..<4 { push(fleet, fleet.workload.pushToStartToken(of: activity), start()) }
        fleet.state.withLock { $0.plan.neverReports = DeviceBits(count: 6) }
        fleet.answered(.tokenReport(activity: 0, rotated: false), succeeded: true, atNs: t)
        book.learned(token: fleet.workload.updateToken(of: 0), atNs: t)
        sendCalls(fleet, book, atNs: t + 10, reaching: [:])
        fleet.answered(.tokenReport(activity: 1, rotated: false), succeeded: true, atNs: t + 1_000_000_000)
        book.learned(token: fleet.workload.updateToken(of: 1), atNs: t + 1_000_000_000)
        fleet.handedOver(.tokenReport(activity: 2, rotated: false))
        let outcome = try outcome(fleet, book)
        let calls = book.calls
        XCTAssertEqual(
            (0..<4).map { outcome.neverUpdatedCause(of: $0, calls: calls) },
            [.serviceBehind, .reportedAfterLastUpdate, .reportNotAnswered, .reportNeverSent]
        )
        // The same evidence from a service that had stopped pushing (quiet for --settle): no backlog.
        var stopped = outcome
        stopped.stoppedPushing = true
        XCTAssertEqual(stopped.neverUpdatedCause(of: 0, calls: calls), .notSentByService)
    }

    func testDevicesSendTheirRequestsAsTheLifecycleFileWritesThem() throws {
        let file = try APIFile(
            path: Self.repository.appendingPathComponent("examples/netmera-lifecycle.yaml").path,
            environment: ["PUSHBENCH_SERVICE_PORT": "8123", "NETMERA_API_KEY": "k-1"]
        )
        let fleet = try fleet()
        let lifecycle = try XCTUnwrap(file.lifecycle)
        let start = file.startRequest(
            try XCTUnwrap(lifecycle.start),
            call: 1,
            in: fleet.workload,
            startAtUnix: 1_800_000_000,
            intendedNanos: 0
        )
        let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(start.body)) as? [String: Any])
        let message = try XCTUnwrap(body["message"] as? [String: Any])
        XCTAssertEqual(message["liveActAttrType"] as? String, "MatchAttributes")
        XCTAssertEqual(message["liveActAttr"] as? [String: Int], ["groupID": 1])
        XCTAssertEqual(
            (message["contentState"] as? [String: Int])?.keys.sorted(),
            ["awayScore", "homeScore", "minute", "period"]
        )
        XCTAssertEqual(body["target"] as? [String: String], ["groupId": "match-1"])
        let report = try XCTUnwrap(
            file.deviceRequest(.tokenReport(activity: 4, rotated: false), of: fleet, intendedNanos: 0)
        )
        let reported = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: String])
        XCTAssertEqual(
            reported,
            ["groupId": "match-1", "activityId": "activity-4", "token": fleet.workload.updateToken(of: 4)]
        )
        XCTAssertEqual(RequestTag(rawValue: report.tag), .device(.tokenReport(activity: 4, rotated: false)))
        let close = try XCTUnwrap(file.deviceRequest(.close(activity: 4), of: fleet, intendedNanos: 0))
        XCTAssertTrue(close.url.hasSuffix("/rest/3.0/live-activity/close"))
    }
}
