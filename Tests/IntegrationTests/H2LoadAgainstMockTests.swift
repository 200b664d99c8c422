import Foundation
import TestSupport
import XCTest

/// The mock under the reference HTTP/2 load generator: it must answer every request h2load sends.
final class H2LoadAgainstMockTests: XCTestCase {
    private var mock: MockFixture!
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        mock = try MockFixture()
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
        mock = nil
    }

    /// h2load sending `requests` Live Activity pushes of `payload` under `topic`, over
    /// `connections` × `streams`, with a valid provider token.
    private func h2load(
        _ requests: Int,
        connections: Int,
        streams: Int,
        payload: [UInt8],
        topic: String
    ) throws -> ExternalProgram.Output {
        let h2load = try XCTUnwrap(
            ExternalProgram.onPath("h2load"),
            "h2load comes with nghttp2-client (Scripts/install-deps.sh)"
        )
        let body = try directory.write("payload.json", payload)
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let output = try h2load.run([
            "-n", String(requests), "-c", String(connections), "-m", String(streams), "-d", body,
            "-H", "authorization: bearer " + jwt, "-H", "apns-push-type: liveactivity", "-H", "apns-topic: " + topic,
            mock.origin + "/3/device/" + String(repeating: "1f", count: 32),
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        return output
    }

    func testH2LoadGetsAnAnswerForEveryRequest() throws {
        let output = try h2load(
            2000,
            connections: 2,
            streams: 50,
            payload: Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8),
            topic: "com.example.app.push-type.liveactivity"
        )
        XCTAssertTrue(output.stdout.contains("2000 succeeded, 0 failed, 0 errored, 0 timeout"), output.stdout)
        XCTAssertTrue(output.stdout.contains("2000 2xx"), output.stdout)
        XCTAssertEqual(mock.server.stats.snapshot().accepted, 2000)
    }

    /// Flow control: 400 pushes of 4000 bytes on one connection (1.6 MB, 24 times the 65,535-byte
    /// window) that are all refused with an error body. Without the mock's WINDOW_UPDATEs the
    /// upload would stall after the first window; h2load must get every answer.
    func testManyLargeRefusedPushesOnOneConnectionNeverStall() throws {
        let spaces = Array(repeating: UInt8(ascii: " "), count: 4000)
        let output = try h2load(400, connections: 1, streams: 100, payload: spaces, topic: "com.example.app")
        XCTAssertTrue(output.stdout.contains("400 4xx"), output.stdout)
        XCTAssertEqual(mock.server.stats.snapshot().rejectedByReason, ["DeviceTokenNotForTopic": 400])
    }
}
