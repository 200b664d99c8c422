import ArrivalMatching
import DeviceEmulation
import Foundation
import Profiling
import RequestFiles
import ServiceDriver
import TestSupport
import Workload
import XCTest

/// A service session enters each phase when it begins, in order, and none is skipped however
/// quickly the next one follows: what `profile --api` reads the service's CPU at (the clock's
/// start) and says its notices at. Driven over real sockets against a small HTTP/1.1 service
/// (Python's http.server) that answers every request with one status.
final class ServiceSessionPhaseTests: XCTestCase {
    private static let service = """
        import http.server, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(int(sys.argv[2]))
                self.send_header("content-length", "0")
                self.end_headers()
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
        print("listening", flush=True)
        server.serve_forever()
        """

    /// The session of two football matches of 3 fans, through a file that posts to `port`.
    private func session(
        port: Int,
        settings: ServiceSession.Settings = ServiceSession.Settings()
    ) throws
        -> ServiceSession
    {
        let file = try APIFile(
            text: """
                register:
                  method: POST
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/register
                  body: {activity: "{{activity}}", token: "{{update_token}}"}
                event:
                  method: POST
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/event
                  body: {group: "{{group}}", state: "{{content_state}}"}
                """,
            path: "api.yaml",
            environment: ["PUSHBENCH_SERVICE_PORT": String(port)]
        )
        let workload = try ServiceWorkload(
            scenario: Scenario(name: "matches", cohorts: [Scenario.Cohort(kind: .football, activities: 6, groups: 2)]),
            perActivity: false,
            requests: 4,
            timing: .allAtOnce
        )
        var settings = settings
        settings.timeout = .seconds(5)
        return ServiceSession(
            file: file,
            workload: workload,
            settings: settings,
            book: workload.arrivalBook(),
            clock: ProfileClock()
        )
    }

    /// Starts the service answering `status` on a free port.
    private func startService(status: Int) throws -> (program: RunningProgram, port: Int) {
        let python = try XCTUnwrap(ExternalProgram.onPath("python3"))
        let listener = try LoopbackListener()
        let port = listener.port
        listener.close()
        let program = try RunningProgram(python, ["-c", Self.service, String(port), String(status)])
        XCTAssertNotNil(program.waitForLine(containing: "listening"), program.output)
        return (program, port)
    }

    /// Runs `session` until it ends (bounded), and returns the phases it entered.
    private func phases(of session: ServiceSession) -> [ServiceSession.Phase] {
        session.start()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            switch session.phase {
            case .sent, .refused, .failed:
                session.stopAndJoin()
                return session.phasesEntered
            case .waiting, .registering, .sending: usleep(20_000)
            }
        }
        session.stopAndJoin()
        XCTFail("the session did not end in 30 s: \(session.phasesEntered)")
        return session.phasesEntered
    }

    func testAHealthyServiceIsWaitedForRegisteredThenSentTo() throws {
        let (service, port) = try startService(status: 200)
        defer { service.interrupt() }
        let session = try session(port: port)
        XCTAssertEqual(session.phasesEntered, [.waiting], "a session begins waiting for its service")
        XCTAssertEqual(phases(of: session), [.waiting, .registering, .sending, .sent])
        let answers = session.answers
        XCTAssertEqual(answers.registration.succeeded, 6)
        XCTAssertEqual(answers.events.succeeded, 4)
        XCTAssertNotNil(answers.startAtUnix, "the clock started as sending began")
    }

    /// A lifecycle file with `start_token`, on a scenario whose apps start every activity
    /// themselves: no device has a push-to-start token to report, so none is registered, and the
    /// session goes on to its calls rather than failing for want of a registration.
    func testLocalStartsRegisterNoPushToStartToken() throws {
        let (service, port) = try startService(status: 200)
        defer { service.interrupt() }
        let file = try APIFile(
            text: """
                start_token:
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/start-token
                  body: {device: "{{device}}", token: "{{push_to_start_token}}"}
                start:
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/start
                  body: {group: "{{group}}"}
                token_report:
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/report
                  body: {activity: "{{activity}}", token: "{{update_token}}"}
                event:
                  url: http://127.0.0.1:${PUSHBENCH_SERVICE_PORT}/event
                  body: {group: "{{group}}", state: "{{content_state}}"}
                """,
            path: "api.yaml",
            environment: ["PUSHBENCH_SERVICE_PORT": String(port)]
        )
        let local = Scenario.Cohort(kind: .football, activities: 6, groups: 2, pushToStart: false)
        let workload = try ServiceWorkload(
            scenario: Scenario(name: "local", cohorts: [local]),
            perActivity: false,
            requests: 2,
            timing: .scenarioTime(scale: 6000),
            startsPerActivity: false
        )
        let clock = ProfileClock()
        let fleet = DeviceFleet(workload: workload, settings: DeviceSettings(), clock: clock)
        let book = workload.arrivalBook()
        let session = ServiceSession(
            file: file,
            workload: workload,
            settings: ServiceSession.Settings(),
            book: book,
            clock: clock,
            reporter: DeviceReporter(file: file, fleet: fleet, arrivals: book, settings: ServiceSession.Settings())
        )
        XCTAssertNil(session.registrationRequest, "no push-to-start token to report")
        XCTAssertEqual(phases(of: session), [.waiting, .registering, .sending, .sent])
        XCTAssertEqual(session.answers.registration.sent, 0)
    }

    /// A service that takes 300 ms to answer a call and counts, per group, the calls (not the
    /// registrations) it is handling at once; it prints the most it saw of any group after each.
    private static let slowFeed = """
        import http.server, json, sys, threading, time
        lock, handling, most = threading.Lock(), {}, [0]
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                group = body.get("group") if self.path == "/event" else None
                with lock:
                    handling[group] = handling.get(group, 0) + 1
                    if group is not None:
                        most[0] = max(most[0], handling[group])
                if self.path == "/event":
                    time.sleep(0.3)
                with lock:
                    handling[group] -= 1
                    print("most", most[0], flush=True)
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
        print("listening", flush=True)
        server.serve_forever()
        """

    /// Every call of two matches due at once (`allAtOnce`): by default each group's calls reach
    /// the service one after another; with `concurrentCalls`, together.
    func testAGroupsCallsGoOutOneAfterAnotherUnlessConcurrentCallsAreAsked() throws {
        let python = try XCTUnwrap(ExternalProgram.onPath("python3"))
        for concurrent in [false, true] {
            let listener = try LoopbackListener()
            let port = listener.port
            listener.close()
            let service = try RunningProgram(python, ["-c", Self.slowFeed, String(port)])
            defer { service.interrupt() }
            XCTAssertNotNil(service.waitForLine(containing: "listening"), service.output)
            var settings = ServiceSession.Settings()
            settings.concurrentCalls = concurrent
            let session = try session(port: port, settings: settings)
            XCTAssertEqual(phases(of: session), [.waiting, .registering, .sending, .sent])
            XCTAssertEqual(session.answers.events.succeeded, 4)
            let most = service.output.split(separator: "\n").compactMap { Int($0.split(separator: " ").last ?? "") }
                .max()
            XCTAssertEqual(most, concurrent ? 2 : 1, "calls of one group handled at once: \(service.output)")
        }
    }

    func testAServiceThatRefusesEveryRegistrationFailsBeforeAnyCall() throws {
        let (service, port) = try startService(status: 500)
        defer { service.interrupt() }
        let session = try session(port: port)
        let entered = phases(of: session)
        XCTAssertEqual(entered.count, 3, "\(entered)")
        XCTAssertEqual(Array(entered.prefix(2)), [.waiting, .registering])
        guard case .failed(let reason) = entered.last else { return XCTFail("\(entered)") }
        XCTAssertTrue(reason.contains("api.yaml:3: no registration succeeded"), reason)
        XCTAssertEqual(session.answers.events.sent, 0, "no call is sent")
        XCTAssertNil(session.answers.startAtUnix, "the clock never started")
    }

    func testAServiceThatNeverListensIsRefusedWithTheURLsLine() throws {
        let listener = try LoopbackListener()
        let port = listener.port
        listener.close()
        var settings = ServiceSession.Settings()
        settings.serviceWait = .seconds(1)
        let session = try session(port: port, settings: settings)
        let entered = phases(of: session)
        XCTAssertEqual(entered.count, 2, "\(entered)")
        guard case .refused(let reason) = entered.last else { return XCTFail("\(entered)") }
        XCTAssertTrue(reason.hasPrefix("api.yaml:3: "), reason)
        XCTAssertTrue(
            reason.hasSuffix(
                "/register accepted no connection in 1 s (is the service listening on 127.0.0.1:\(port)?)"
            ),
            reason
        )
        XCTAssertEqual(session.answers.registration.sent, 0)
    }

    /// Stopping a session waits for its thread, boundedly: what it answered is final once
    /// `stopAndJoin` returns.
    func testStoppingASessionJoinsItsThreadWithinAFewTicks() throws {
        let listener = try LoopbackListener()
        let port = listener.port
        listener.close()
        var settings = ServiceSession.Settings()
        settings.serviceWait = .seconds(30)
        let session = try session(port: port, settings: settings)
        session.start()
        usleep(300_000)
        let began = Date()
        session.stopAndJoin()
        XCTAssertLessThan(Date().timeIntervalSince(began), 2, "the thread checks the stop flag every 200 ms")
        XCTAssertEqual(session.phasesEntered, [.waiting, .refused("stopped before the service listened")])
    }
}
