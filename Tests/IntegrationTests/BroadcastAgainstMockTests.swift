import Foundation
import MockAPNs
import TestSupport
import Wire
import XCTest

/// iOS 18 broadcast push against the mock, as curl sees it over HTTP/2 and TLS: every channel
/// operation on the channel listener, and broadcasts with every reason their checks give.
final class BroadcastAgainstMockTests: XCTestCase {
    private var mock: MockFixture!
    private var directory: TemporaryDirectory!
    private var curl: ExternalProgram!
    private var bearer = ""
    private let app = "com.example.app"

    override func setUpWithError() throws {
        curl = try XCTUnwrap(ExternalProgram.onPath("curl"), "curl is needed to test the mock with a real client")
        mock = try MockFixture(channelPort: 0, channelLimit: 3)
        directory = try TemporaryDirectory()
        try directory.write("ca.pem", mock.server.certificatePEM)
        bearer = "bearer " + (try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt)
    }

    override func tearDown() {
        directory.remove()
        mock = nil
    }

    private struct Response {
        var status: String
        var headers: [String: String]
        var body: String
    }

    /// One curl request to the channel listener (`channels`) or the push listener.
    private func request(
        channels: Bool,
        _ method: String,
        _ path: String,
        headers: [String] = [],
        body: String? = nil,
        authorized: Bool = true
    ) throws -> Response {
        let port = channels ? try XCTUnwrap(mock.server.channelPort) : mock.server.port
        let headersFile = directory.file("headers-\(UUID().uuidString)")
        let bodyFile = directory.file("body-\(UUID().uuidString)")
        var arguments = [
            "-sS", "--http2", "--cacert", directory.file("ca.pem"), "-X", method, "-D", headersFile, "-o", bodyFile,
            "-w", "%{http_code}",
        ]
        for header in headers + (authorized ? ["authorization: " + bearer] : []) { arguments += ["-H", header] }
        if let body { arguments += ["--data-binary", body] }
        let output = try curl.run(arguments + ["https://127.0.0.1:\(port)\(path)"])
        XCTAssertEqual(output.status, 0, output.stderr)
        var fields: [String: String] = [:]
        for line in ((try? String(contentsOfFile: headersFile, encoding: .utf8)) ?? "").split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(
            status: output.stdout,
            headers: fields,
            body: (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? ""
        )
    }

    private func createChannel(policy: Int) throws -> String {
        let created = try request(
            channels: true,
            "POST",
            "/1/apps/\(app)/channels",
            body: #"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#
        )
        XCTAssertEqual(created.status, "201", created.body)
        return try XCTUnwrap(created.headers["apns-channel-id"])
    }

    func testEveryChannelOperationAndItsRefusals() throws {
        let requestID = "0a1b2c3d-0000-4000-8000-00000000000c"
        let created = try request(
            channels: true,
            "POST",
            "/1/apps/\(app)/channels",
            headers: ["apns-request-id: " + requestID],
            body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#
        )
        XCTAssertEqual(created.status, "201")
        XCTAssertEqual(created.headers["apns-request-id"], requestID)
        XCTAssertEqual(created.body, "")
        let id = try XCTUnwrap(created.headers["apns-channel-id"])
        XCTAssertNotNil(Data(base64Encoded: id))

        let read = try request(channels: true, "GET", "/1/apps/\(app)/channels", headers: ["apns-channel-id: " + id])
        XCTAssertEqual(read.status, "200")
        XCTAssertEqual(read.body, #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        XCTAssertNotNil(read.headers["apns-request-id"].flatMap { APNsID.isValid($0) ? $0 : nil })
        let list = try request(channels: true, "GET", "/1/apps/\(app)/all-channels")
        XCTAssertEqual(list.body, #"{"channels":["\#(id)"]}"#)

        let deleted = try request(
            channels: true,
            "DELETE",
            "/1/apps/\(app)/channels",
            headers: ["apns-channel-id: " + id]
        )
        XCTAssertEqual(deleted.status, "204")
        XCTAssertEqual(
            try request(channels: true, "GET", "/1/apps/\(app)/all-channels").body,
            #"{"channels":[]}"#
        )

        let settings = "/1/apps/\(app)/channels"
        let cases: [(reason: APNsReason, method: String, path: String, headers: [String], body: String?, auth: Bool)] =
            [
                (.badPath, "DELETE", settings, ["apns-channel-id: " + id], nil, true),
                (.channelNotRegistered, "GET", settings, ["apns-channel-id: " + id], nil, true),
                (.missingChannelId, "GET", settings, [], nil, true),
                (.badChannelId, "GET", settings, ["apns-channel-id: not*base64"], nil, true),
                (.badPath, "GET", "/1/apps/\(app)/channel", [], nil, true),
                (.methodNotAllowed, "PUT", settings, [], "{}", true),
                (.missingProviderToken, "GET", "/1/apps/\(app)/all-channels", [], nil, false),
                (.badMessageId, "GET", "/1/apps/\(app)/all-channels", ["apns-request-id: 42"], nil, true),
                (.topicDisallowed, "GET", "/1/apps/\(app).push-type.liveactivity/all-channels", [], nil, true),
                (.badRequestPayload, "POST", settings, [], "not json", true),
                (
                    .badRequestParams, "POST", settings, [],
                    #"{"message-storage-policy":0,"push-type":"LiveActivity","x":1}"#, true
                ),
                (.missingChannelQueueSize, "POST", settings, [], #"{"push-type":"LiveActivity"}"#, true),
                (.missingPushType, "POST", settings, [], #"{"message-storage-policy":0}"#, true),
                (.invalidPushType, "POST", settings, [], #"{"message-storage-policy":0,"push-type":"Alert"}"#, true),
            ]
        for (reason, method, path, headers, body, auth) in cases {
            let response = try request(channels: true, method, path, headers: headers, body: body, authorized: auth)
            XCTAssertEqual(response.status, String(reason.status), "\(reason)")
            XCTAssertEqual(response.body, #"{"reason":"\#(reason.rawValue)"}"#, "\(reason)")
            XCTAssertNotNil(response.headers["apns-request-id"], "\(reason)")
            XCTAssertNil(response.headers["apns-id"], "channel answers carry apns-request-id, not apns-id")
        }

        for _ in 0..<3 { _ = try createChannel(policy: 0) }
        let full = try request(
            channels: true,
            "POST",
            settings,
            body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#
        )
        XCTAssertEqual(full.body, #"{"reason":"CannotCreateChannelConfig"}"#, "the limit is 3 here")
        XCTAssertEqual(
            try request(channels: false, "POST", settings, body: "{}").body,
            #"{"reason":"BadPath"}"#,
            "channels are managed on their own listener, as on APNs' own hosts"
        )
        let stats = mock.server.stats.snapshot()
        XCTAssertEqual(stats.channelsCreated, 4)
        XCTAssertEqual(stats.channelsCreated - stats.channelsDeleted, 3)
    }

    func testBroadcastsAndEveryReasonTheirChecksGive() throws {
        let noneStored = try createChannel(policy: 0)
        let stored = try createChannel(policy: 1)
        let payload = #"{"aps":{"timestamp":1,"event":"update","content-state":{"minute":1}}}"#
        let path = "/4/broadcasts/apps/\(app)"
        func headers(
            _ channel: String?,
            expiration: String? = "0",
            priority: String? = "10",
            type: String? = "liveactivity"
        )
            -> [String]
        {
            [
                channel.map { "apns-channel-id: " + $0 }, type.map { "apns-push-type: " + $0 },
                expiration.map { "apns-expiration: " + $0 }, priority.map { "apns-priority: " + $0 },
            ].compactMap { $0 }
        }

        let accepted = try request(channels: false, "POST", path, headers: headers(noneStored), body: payload)
        XCTAssertEqual(accepted.status, "200", accepted.body)
        XCTAssertNotNil(accepted.headers["apns-unique-id"].flatMap { APNsID.isValid($0) ? $0 : nil })
        XCTAssertNotNil(accepted.headers["apns-request-id"])
        XCTAssertNil(accepted.headers["apns-id"])
        let kept = try request(
            channels: false,
            "POST",
            path,
            headers: headers(stored, expiration: "1900000000"),
            body: payload
        )
        XCTAssertEqual(kept.status, "200", "a stored-message channel takes an expiration")
        let applesSpelling = try request(
            channels: false,
            "POST",
            path,
            headers: headers(noneStored, type: "LiveActivity"),
            body: payload
        )
        XCTAssertEqual(
            applesSpelling.status,
            "200",
            "Apple's broadcast page spells it LiveActivity: \(applesSpelling.body)"
        )

        let unknown = Data(repeating: 7, count: 16).base64EncodedString()
        let large = String(repeating: " ", count: 5121)
        let cases: [(reason: APNsReason, method: String, path: String, headers: [String], body: String?)] = [
            (.methodNotAllowed, "GET", path, headers(noneStored), nil),
            (.badPath, "POST", "/4/broadcasts/apps/", headers(noneStored), payload),
            (.topicDisallowed, "POST", path + ".push-type.liveactivity", headers(noneStored), payload),
            (.badMessageId, "POST", path, headers(noneStored) + ["apns-request-id: x"], payload),
            (.missingChannelId, "POST", path, headers(nil), payload),
            (.badChannelId, "POST", path, headers("***"), payload),
            (.missingPushType, "POST", path, headers(noneStored, type: nil), payload),
            (.invalidPushType, "POST", path, headers(noneStored, type: "alert"), payload),
            (.badExpirationDate, "POST", path, headers(noneStored, expiration: nil), payload),
            (.badPriority, "POST", path, headers(noneStored, priority: nil), payload),
            (.channelNotRegistered, "POST", path, headers(unknown), payload),
            (.badExpirationDate, "POST", path, headers(noneStored, expiration: "1900000000"), payload),
            (.payloadEmpty, "POST", path, headers(noneStored), nil),
            (.payloadTooLarge, "POST", path, headers(noneStored), large),
            (.badRequestPayload, "POST", path, headers(noneStored), "not json"),
        ]
        for (reason, method, path, headers, body) in cases {
            let response = try request(channels: false, method, path, headers: headers, body: body)
            XCTAssertEqual(response.status, String(reason.status), "\(reason)")
            XCTAssertEqual(response.body, #"{"reason":"\#(reason.rawValue)"}"#, "\(reason)")
            XCTAssertEqual(response.headers["content-type"], "application/json", "\(reason)")
        }
        let stats = mock.server.stats.snapshot()
        XCTAssertEqual(stats.broadcastsAccepted, 3)
        XCTAssertEqual(stats.broadcastDeliveries, 750, "250 simulated subscribers per channel")
        XCTAssertEqual(stats.broadcasts, 3 + cases.count)
        XCTAssertEqual(stats.pushes, 0, "broadcasts are not device pushes")
    }
}
