import Foundation
import LoadEngine
import MockAPNs
import MockFaults
import TestSupport
import Wire
import XCTest

/// Incidents on the mock's timeline, met over real sockets by our engine and by curl: each shows
/// in the client's books the way the outage would.
final class IncidentTimelineTests: XCTestCase {
    /// A hang never answers: the client counts timeouts, and the mock the answers it withheld.
    func testAHangShowsAsTimeoutsInTheClientsBooks() throws {
        let mock = try MockFixture(faults: FaultPlan(incidents: [Incident(.hang, atSeconds: 0)]))
        var load = try mock.load(requests: 30, connections: 1, streams: 30, transport: .nghttp2)
        load.transport.requestTimeout = .milliseconds(400)
        let result = try LoadTest.run(load, tokens: mock.tokens())
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.counts.timedOut, 30)
        let stats = mock.server.stats.snapshot()
        XCTAssertEqual(stats.answersWithheld, 30)
        XCTAssertEqual(stats.pushes, 0, "nothing was answered")
    }

    /// GOAWAY to every connection at 0.5 s, then a reset of every connection at 1.1 s, during a
    /// 2 s open-loop run: the sender reconnects each time and its books still balance.
    func testGoAwayAndResetAtSetMomentsReachEveryOpenConnection() throws {
        // Answers take 20 ms, so both connections carry pushes: the client sends on the least busy
        // one, and against a mock that answers at once it would never need (or reopen) the second.
        let mock = try MockFixture(
            faults: FaultPlan(
                latency: .fixed(micros: 20_000),
                incidents: [Incident(.goAway, atSeconds: 0.5), Incident(.reset, atSeconds: 1.1)]
            )
        )
        var load = try mock.load(requests: 800, connections: 2, streams: 20, transport: .nghttp2)
        load.pacing = try .constantRate(perSecond: 400)
        let result = try LoadTest.run(load, tokens: mock.tokens())
        let stats = mock.server.stats.snapshot()
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(stats.goAwaysSent, 2, "both connections open at 0.5 s")
        // The two that replaced them, and any GOAWAY'd one still waiting for an answer.
        XCTAssertGreaterThanOrEqual(stats.connectionResets, 2, "the connections open at 1.1 s")
        XCTAssertGreaterThanOrEqual(result.recoveries?.reconnections ?? 0, 4)
        XCTAssertEqual(stats.pushes, result.counts.succeeded + result.counts.rejected)
        XCTAssertGreaterThan(result.counts.succeeded, 700, "\(result.erroredByKind)")
    }

    /// A slow TLS accept holds the handshake: curl's time to the TLS handshake's end shows it.
    func testASlowTLSAcceptDelaysTheHandshake() throws {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let mock = try MockFixture(
            faults: FaultPlan(incidents: [Incident(.slowTLSAccept(delaySeconds: 0.6), atSeconds: 0, forSeconds: 60)])
        )
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ca = try directory.write("ca.pem", mock.server.certificatePEM)
        let output = try curl.run([
            "-sS", "--http2", "--cacert", ca, "-o", "/dev/null", "-w", "%{http_code} %{time_appconnect}",
            mock.origin + "/stats",
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        let parts = output.stdout.split(separator: " ")
        XCTAssertEqual(parts.first, "200")
        XCTAssertGreaterThanOrEqual(Double(parts.last ?? "") ?? 0, 0.6, output.stdout)
        XCTAssertEqual(mock.server.stats.snapshot().handshakesDelayed, 1)
    }

    /// Per-token throttling over curl: the third push to one token within the window is 429.
    func testATokenPastItsLimitGetsTooManyRequests() throws {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let mock = try MockFixture(faults: FaultPlan(tokenRateLimit: .init(pushes: 2, windowSeconds: 600)))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ca = try directory.write("ca.pem", mock.server.certificatePEM)
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let segment = [
            "-sS", "--http2", "--cacert", ca, "-H", "authorization: bearer " + jwt, "-H", "apns-push-type: alert",
            "-H", "apns-topic: com.example.app", "--data", #"{"aps":{"alert":"hi"}}"#, "-w", " %{http_code}\n",
            mock.origin + "/3/device/" + String(repeating: "0f", count: 32),
        ]
        let output = try curl.run(Array([segment, segment, segment].joined(separator: ["--next"])))
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(
            output.stdout.split(separator: "\n").map(String.init),
            [" 200", " 200", #"{"reason":"TooManyRequests"} 429"#]
        )
    }
}
