import Foundation
import MockAPNs
import MockFaults
import TestSupport
import XCTest

/// APNs' stream limit with token authentication, as nghttp (an independent HTTP/2 client) sees
/// it on the wire: one stream until a request with a valid token, then 1000.
final class StreamLimitTests: XCTestCase {
    private func exchange(
        with mock: MockFixture,
        authorization: String?,
        tokens: [String] = [String(repeating: "3c", count: 32)]
    ) throws -> [String] {
        let nghttp = try XCTUnwrap(ExternalProgram.onPath("nghttp"), "nghttp comes with nghttp2-client")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let payload = try directory.write("payload.json", Array(#"{"aps":{"timestamp":1,"event":"update"}}"#.utf8))
        var headers = ["apns-push-type: liveactivity", "apns-topic: com.example.app.push-type.liveactivity"]
        if let authorization { headers.append("authorization: " + authorization) }
        let output = try nghttp.run(
            ["-nv", "-d", payload] + headers.flatMap { ["-H", $0] }
                + tokens.map { mock.origin + "/3/device/" + $0 }
        )
        XCTAssertEqual(output.status, 0, output.stderr)
        return output.stdout.split(separator: "\n").map(String.init)
    }

    /// The `MAX_CONCURRENT_STREAMS` values the server sent, in order: only those inside frames
    /// nghttp logs as `recv` (its own SETTINGS may be logged before or after the server's).
    private func streamLimits(_ lines: [String]) -> [String] {
        var receiving = false
        var limits: [String] = []
        for line in lines {
            if line.hasPrefix("[") { receiving = line.contains("] recv ") }
            if receiving, line.contains("SETTINGS_MAX_CONCURRENT_STREAMS"), let value = line.split(separator: ":").last
            {
                limits.append(String(value.dropLast()))
            }
        }
        return limits
    }

    func testTheLimitRisesAfterTheFirstValidToken() throws {
        let mock = try MockFixture()
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let lines = try exchange(with: mock, authorization: "bearer " + jwt)
        XCTAssertEqual(streamLimits(lines), ["1", "1000"], lines.joined(separator: "\n"))
        let raised = try XCTUnwrap(lines.firstIndex { $0.contains("SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1000]") })
        let status = try XCTUnwrap(lines.firstIndex { $0.contains(":status: ") })
        XCTAssertLessThan(raised, status, "the new limit arrives before the answer")
    }

    func testTheLimitStaysAtOneWithoutAValidToken() throws {
        let lines = try exchange(with: MockFixture(), authorization: nil)
        XCTAssertEqual(streamLimits(lines), ["1"], lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.contains(":status: 403") })
    }

    func testWithTheSwitchARejectionDropsTheLimitToOneUntilAnAcceptance() throws {
        let mock = try MockFixture(dropStreamsAfterRejection: true)
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        // One connection, two pushes in turn: a malformed token (400 BadDeviceToken), then a good one.
        let lines = try exchange(
            with: mock,
            authorization: "bearer " + jwt,
            tokens: ["zz", String(repeating: "3c", count: 32)]
        )
        XCTAssertEqual(streamLimits(lines), ["1", "1000", "1", "1000"], lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.contains(":status: 400") })
        XCTAssertTrue(lines.contains { $0.contains(":status: 200") })
        // Off by default: the same exchange keeps 1000.
        let plain = try MockFixture()
        let plainJWT = try plain.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let unchanged = try exchange(
            with: plain,
            authorization: "bearer " + plainJWT,
            tokens: ["zz", String(repeating: "3c", count: 32)]
        )
        XCTAssertEqual(streamLimits(unchanged), ["1", "1000"], unchanged.joined(separator: "\n"))
    }

    func testGoAwayCarriesAJSONReasonAndEveryOpenedStreamIsAnswered() throws {
        let mock = try MockFixture(faults: FaultPlan(goAwayAfter: 1))
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        // Two requests, so nghttp is still reading when GOAWAY follows the first answer.
        let lines = try exchange(
            with: mock,
            authorization: "bearer " + jwt,
            tokens: [String(repeating: "3c", count: 32), String(repeating: "4d", count: 32)]
        )
        let goAway = try XCTUnwrap(lines.firstIndex { $0.contains("recv GOAWAY frame") }, lines.joined(separator: "\n"))
        XCTAssertTrue(
            lines[goAway + 1].contains(#"error_code=NO_ERROR(0x00), opaque_data(21)=[{"reason":"Shutdown"}]"#)
        )
        XCTAssertTrue(lines.contains { $0.contains(":status: 200") }, "the stream it had opened was answered")
        XCTAssertEqual(mock.server.stats.snapshot().goAwaysSent, 1)
    }
}
