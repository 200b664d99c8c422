import Foundation
import TestSupport
import XCTest

/// The mock under the reference HTTP/2 load generator: it must answer every request h2load sends.
final class H2LoadAgainstMockTests: XCTestCase {
    func testH2LoadGetsAnAnswerForEveryRequest() throws {
        let h2load = try XCTUnwrap(
            ExternalProgram.onPath("h2load"),
            "h2load comes with nghttp2-client (Scripts/install-deps.sh)"
        )
        let mock = try MockFixture()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let payload = try directory.write(
            "payload.json",
            Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8)
        )
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let output = try h2load.run([
            "-n", "2000", "-c", "2", "-m", "50", "-d", payload,
            "-H", "authorization: bearer " + jwt, "-H", "apns-push-type: liveactivity",
            "-H", "apns-topic: com.example.app.push-type.liveactivity",
            mock.origin + "/3/device/" + String(repeating: "1f", count: 32),
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("2000 succeeded, 0 failed, 0 errored, 0 timeout"), output.stdout)
        XCTAssertTrue(output.stdout.contains("2000 2xx"), output.stdout)
        XCTAssertEqual(mock.server.stats.snapshot().accepted, 2000)
    }

    /// Flow control: 400 pushes of 4000 bytes on one connection (1.6 MB, 24 times the 65,535-byte
    /// window) that are all refused with an error body. Without the mock's WINDOW_UPDATEs the
    /// upload would stall after the first window; h2load must get every answer.
    func testManyLargeRefusedPushesOnOneConnectionNeverStall() throws {
        let h2load = try XCTUnwrap(ExternalProgram.onPath("h2load"))
        let mock = try MockFixture()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let payload = try directory.write("large.json", Array(repeating: UInt8(ascii: " "), count: 4000))
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let output = try h2load.run([
            "-n", "400", "-c", "1", "-m", "100", "-d", payload,
            "-H", "authorization: bearer " + jwt, "-H", "apns-push-type: liveactivity",
            "-H", "apns-topic: com.example.app",
            mock.origin + "/3/device/" + String(repeating: "1f", count: 32),
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("400 4xx"), output.stdout)
        XCTAssertEqual(mock.server.stats.snapshot().rejectedByReason, ["DeviceTokenNotForTopic": 400])
    }
}
