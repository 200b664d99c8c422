import Encodings
import Foundation
import MockAPNs
import MockFaults
import TestSupport
import Wire
import Workload
import XCTest

/// The mock as a stranger's client sees it: curl over HTTP/2 and TLS, verifying the certificate.
final class CurlAgainstMockTests: XCTestCase {
    private var mock: MockFixture!
    private var directory: TemporaryDirectory!
    private var curl: ExternalProgram!
    private let token = String(repeating: "0f", count: 32)

    override func setUpWithError() throws {
        curl = try XCTUnwrap(ExternalProgram.onPath("curl"), "curl is needed to test the mock with a real client")
        mock = try MockFixture(disallowedTopics: ["com.example.blocked"])
        directory = try TemporaryDirectory()
        try directory.write("ca.pem", mock.server.certificatePEM)
    }

    override func tearDown() {
        directory.remove()
        mock = nil
    }

    /// Runs curl against the mock and returns (status, http version, response headers, body).
    private func request(
        _ arguments: [String],
        path: String
    ) throws -> (status: String, version: String, headers: String, body: String) {
        let headersFile = directory.file("headers-\(UUID().uuidString)")
        let bodyFile = directory.file("body-\(UUID().uuidString)")
        let output = try curl.run(
            [
                "-sS", "--cacert", directory.file("ca.pem"), "-D", headersFile, "-o", bodyFile, "-w",
                "%{http_code} %{http_version}",
            ]
                + arguments + [mock.origin + path]
        )
        XCTAssertEqual(output.status, 0, output.stderr)
        let parts = output.stdout.split(separator: " ").map(String.init)
        return (
            parts.first ?? "", parts.last ?? "",
            (try? String(contentsOfFile: headersFile, encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? ""
        )
    }

    /// A Live Activity push's headers as curl arguments; `replacing` changes or (with `nil`)
    /// drops some, `extra` adds more.
    private func pushHeaders(
        authorization: String?,
        replacing: [String: String?] = [:],
        extra: [String] = []
    ) -> [String] {
        let base = [
            ("apns-push-type", "liveactivity"), ("apns-topic", "com.example.app.push-type.liveactivity"),
            ("apns-priority", "10"), ("apns-id", "0a1b2c3d-0000-4000-8000-000000000001"),
        ]
        var headers = base.compactMap { name, value in
            (replacing[name] ?? value).map { "\(name): \($0)" }
        }
        if let authorization { headers.append("authorization: " + authorization) }
        return (headers + extra).flatMap { ["-H", $0] }
    }

    func testCurlGetsA200WithTheEchoedApnsID() throws {
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let response = try request(
            ["--http2"] + pushHeaders(authorization: "bearer " + jwt)
                + ["--data", #"{"aps":{"timestamp":1,"event":"update","content-state":{"minute":1}}}"#],
            path: "/3/device/" + token
        )
        XCTAssertEqual(response.status, "200")
        XCTAssertEqual(response.version, "2")
        XCTAssertTrue(
            response.headers.lowercased().contains("apns-id: 0a1b2c3d-0000-4000-8000-000000000001"),
            response.headers
        )
        XCTAssertEqual(response.body, "")
        XCTAssertFalse(response.headers.lowercased().contains("apns-unique-id"), "production sends no apns-unique-id")
    }

    /// A body three times the 65,535-byte flow-control window arrives only if the mock returns
    /// the window of its stream and connection as it reads; then it is refused on its length.
    func testABodyLongerThanTheFlowControlWindowArrivesAndIsRefusedOnLength() throws {
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        try directory.write("huge.json", Array(repeating: UInt8(ascii: " "), count: 200_000))
        let response = try request(
            ["--http2", "--max-time", "20"] + pushHeaders(authorization: "bearer " + jwt)
                + ["--data-binary", "@" + directory.file("huge.json")],
            path: "/3/device/" + token
        )
        XCTAssertEqual(response.status, "413")
        XCTAssertEqual(response.body, #"{"reason":"PayloadTooLarge"}"#)
    }

    func testCurlSeesAnInjectedErrorAfterTheInjectedLatency() throws {
        mock = try MockFixture(
            faults: FaultPlan(latency: .fixed(micros: 300_000), errorRates: [.serviceUnavailable: 1])
        )
        try directory.write("ca.pem", mock.server.certificatePEM)
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let started = Date()
        let response = try request(
            ["--http2"] + pushHeaders(authorization: "bearer " + jwt)
                + ["--data", #"{"aps":{"timestamp":1,"event":"update","content-state":{"minute":1}}}"#],
            path: "/3/device/" + token
        )
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3)
        XCTAssertEqual(response.status, "503")
        XCTAssertEqual(response.body, #"{"reason":"ServiceUnavailable"}"#)
        XCTAssertTrue(
            response.headers.lowercased().contains("apns-id: 0a1b2c3d-0000-4000-8000-000000000001"),
            response.headers
        )
        let stats = try request([], path: "/stats")
        XCTAssertTrue(stats.body.contains(#""faults_injected":{"ServiceUnavailable":1}"#), stats.body)
    }

    func testAnUnregisteredTokenGets410WithTheMillisecondTimestamp() throws {
        mock = try MockFixture(tokenHygiene: try TokenHygiene(unregisteredFraction: 1))
        try directory.write("ca.pem", mock.server.certificatePEM)
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let response = try request(
            ["--http2"] + pushHeaders(authorization: "bearer " + jwt) + ["--data", "{}"],
            path: "/3/device/" + token
        )
        XCTAssertEqual(response.status, "410")
        let body = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any],
            response.body
        )
        XCTAssertEqual(body["reason"] as? String, "Unregistered")
        let timestamp = try XCTUnwrap(body["timestamp"] as? Int64)
        XCTAssertLessThanOrEqual(abs(timestamp - before), 60_000, "milliseconds since the epoch, not seconds")
    }

    func testTheDevelopmentEnvironmentAddsAUniqueID() throws {
        mock = try MockFixture(environment: .development)
        try directory.write("ca.pem", mock.server.certificatePEM)
        let response = try request(
            ["--http2"] + pushHeaders(authorization: nil) + ["--data", "{}"],
            path: "/3/device/" + token
        )
        XCTAssertEqual(response.status, "403")
        let line = try XCTUnwrap(
            response.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("apns-unique-id: ") },
            response.headers
        )
        XCTAssertTrue(APNsID.isValid(String(line.dropFirst("apns-unique-id: ".count))), String(line))
    }

    func testCurlWithoutATokenGets403MissingProviderTokenAsJSON() throws {
        let response = try request(
            ["--http2"] + pushHeaders(authorization: nil) + ["--data", "{}"],
            path: "/3/device/" + token
        )
        XCTAssertEqual(response.status, "403")
        XCTAssertTrue(response.headers.lowercased().contains("content-type: application/json"))
        XCTAssertTrue(response.headers.lowercased().contains("apns-id: 0a1b2c3d-0000-4000-8000-000000000001"))
        XCTAssertEqual(response.body, #"{"reason":"MissingProviderToken"}"#)
    }

    func testStatsAnswerAsJSON() throws {
        _ = try request(["--http2"] + pushHeaders(authorization: nil) + ["--data", "{}"], path: "/3/device/" + token)
        let response = try request(["--http2"], path: "/stats")
        XCTAssertEqual(response.status, "200")
        let stats = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        XCTAssertEqual(stats["pushes"] as? Int, 1)
        XCTAssertEqual(stats["rejected_by_reason"] as? [String: Int], ["MissingProviderToken": 1])
    }

    func testHTTP1IsRefused() throws {
        let output = try curl.run(["-sS", "--http1.1", "--cacert", directory.file("ca.pem"), mock.origin + "/stats"])
        XCTAssertNotEqual(output.status, 0, "an HTTP/1.1-only client must not get an answer")
        let deadline = Date().addingTimeInterval(5)
        while mock.server.stats.snapshot().connectionsRefusedWithoutH2 == 0 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(mock.server.stats.snapshot().connectionsRefusedWithoutH2, 1)
    }

    /// APNs speaks HTTP/2 by prior knowledge to a TLS client that offers no ALPN (Pushy did for
    /// years, aioapns still does); one that then sends HTTP/1.1 is closed.
    func testAClientWithoutALPNIsServedHTTP2ByPriorKnowledge() throws {
        let answered = try request(
            ["--no-alpn", "--http2-prior-knowledge"] + pushHeaders(authorization: nil) + ["--data", "{}"],
            path: "/3/device/" + token
        )
        XCTAssertEqual(answered.status, "403")
        XCTAssertEqual(answered.version, "2")
        XCTAssertEqual(mock.server.stats.snapshot().connectionsWithoutALPN, 1)
        let output = try curl.run([
            "-sS", "--no-alpn", "--http1.1", "--cacert", directory.file("ca.pem"), mock.origin + "/stats",
        ])
        XCTAssertNotEqual(output.status, 0, "an HTTP/1.1 request without ALPN must not get an answer")
        let deadline = Date().addingTimeInterval(5)
        while mock.server.stats.snapshot().connectionsRefusedWithoutH2 == 0 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(mock.server.stats.snapshot().connectionsRefusedWithoutH2, 1)
        XCTAssertEqual(mock.server.stats.snapshot().connectionsWithoutALPN, 1)
    }

    func testCertificateVerificationIsOn() throws {
        let output = try curl.run(["-sS", "--http2", mock.origin + "/stats"])
        XCTAssertEqual(
            output.status,
            60,
            "without --cacert curl must refuse the self-signed certificate: \(output.stderr)"
        )
    }
}

extension CurlAgainstMockTests {
    /// Three pushes on one connection: token A, a new token B within 20 minutes, A again.
    func testASecondTokenOnOneConnectionIsThrottled() throws {
        let key = mock.signingKey
        let now = Int64(Date().timeIntervalSince1970)
        let first = try ProviderToken.sign(
            keyID: MockFixture.keyID,
            teamID: MockFixture.teamID,
            issuedAt: now,
            with: key
        )
        let second = try ProviderToken.sign(
            keyID: MockFixture.keyID,
            teamID: MockFixture.teamID,
            issuedAt: now - 60,
            with: key
        )
        // curl reuses the connection across --next; each segment repeats its options.
        let segments = [first.jwt, second.jwt, first.jwt].map { jwt in
            ["-sS", "--http2", "--cacert", directory.file("ca.pem")] + pushHeaders(authorization: "bearer " + jwt)
                + [
                    "--data", "{}", "-w", " %{http_code} connects=%{num_connects}\n",
                    mock.origin + "/3/device/" + token,
                ]
        }
        let arguments = segments.joined(separator: ["--next"]).map { $0 }
        let output = try curl.run(arguments)
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(
            output.stdout.split(separator: "\n").map(String.init),
            [
                " 200 connects=1",
                #"{"reason":"TooManyProviderTokenUpdates"} 429 connects=0"#,
                " 200 connects=0",
            ]
        )
    }
}

extension CurlAgainstMockTests {
    /// Apple's 2025 scoped keys, from a keys file: on one connection a production-only key is
    /// accepted, then an older key is unrelated to it, then a development-only key is for the
    /// wrong environment.
    func testScopedKeysFromAKeysFileGetTheirReasons() throws {
        let now = Int64(Date().timeIntervalSince1970)
        var entries: [String] = []
        var bearers: [String] = []
        for (keyID, environment) in [
            ("TEAMPROD01", "production"), ("LEGACYKEY1", "both"), ("TEAMDEV001", "development"),
        ] {
            let key = try ES256PrivateKey()
            try directory.write(keyID + ".pem", key.publicKeyPEM())
            entries.append(
                #"{"key_id":"\#(keyID)","team_id":"\#(MockFixture.teamID)","public_key":"\#(keyID).pem","environment":"\#(environment)"}"#
            )
            let token = try ProviderToken.sign(keyID: keyID, teamID: MockFixture.teamID, issuedAt: now, with: key)
            bearers.append("bearer " + token.jwt)
        }
        try directory.write("keys.json", Array(#"{"keys":[\#(entries.joined(separator: ","))]}"#.utf8))
        mock = try MockFixture(keys: ProviderKeyFile.load(directory.file("keys.json")))
        try directory.write("ca.pem", mock.server.certificatePEM)

        let segments = bearers.map { bearer in
            ["-sS", "--http2", "--cacert", directory.file("ca.pem")] + pushHeaders(authorization: bearer)
                + [
                    "--data", "{}", "-w", " %{http_code} connects=%{num_connects}\n",
                    mock.origin + "/3/device/" + token,
                ]
        }
        let output = try curl.run(segments.joined(separator: ["--next"]).map { $0 })
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(
            output.stdout.split(separator: "\n").map(String.init),
            [
                " 200 connects=1",
                #"{"reason":"UnrelatedKeyIdInToken"} 403 connects=0"#,
                #"{"reason":"BadEnvironmentKeyIdInToken"} 403 connects=0"#,
            ]
        )
    }
}

extension CurlAgainstMockTests {
    /// One request per reason the mock's own checks give, each from curl over HTTP/2: APNs'
    /// status, the reason as a JSON body with its content type, and an `apns-id` (the request's,
    /// or a new one when the request's is malformed).
    func testEveryCheckedReasonReachesCurlWithItsStatusBodyAndApnsID() throws {
        let now = Int64(Date().timeIntervalSince1970)
        let valid = "bearer " + (try mock.tokens().token(now: now).jwt)
        let stale = try ProviderToken.sign(
            keyID: MockFixture.keyID,
            teamID: MockFixture.teamID,
            issuedAt: now - 3700,
            with: mock.signingKey
        )
        try directory.write("large.json", Array(repeating: UInt8(ascii: " "), count: 4097))
        let body = ["--data", "{}"]
        let cases: [(reason: APNsReason, arguments: [String], path: String)] = [
            (.methodNotAllowed, pushHeaders(authorization: valid) + ["-X", "DELETE"], "/3/device/" + token),
            (.badPath, pushHeaders(authorization: valid) + body, "/3/devices/" + token),
            (.missingDeviceToken, pushHeaders(authorization: valid) + body, "/3/device/"),
            (
                .duplicateHeaders, pushHeaders(authorization: valid) + ["-H", "apns-priority: 5"] + body,
                "/3/device/" + token
            ),
            (.missingProviderToken, pushHeaders(authorization: nil) + body, "/3/device/" + token),
            (.invalidProviderToken, pushHeaders(authorization: "bearer x.y.z") + body, "/3/device/" + token),
            (.expiredProviderToken, pushHeaders(authorization: "bearer " + stale.jwt) + body, "/3/device/" + token),
            (
                .badMessageId, pushHeaders(authorization: valid, replacing: ["apns-id": "NOT-A-UUID"]) + body,
                "/3/device/" + token
            ),
            (
                .invalidPushType, pushHeaders(authorization: valid, replacing: ["apns-push-type": "nonsense"]) + body,
                "/3/device/" + token
            ),
            (
                .missingTopic, pushHeaders(authorization: valid, replacing: ["apns-topic": nil]) + body,
                "/3/device/" + token
            ),
            (
                .badTopic,
                pushHeaders(authorization: valid, replacing: ["apns-topic": "com.example..app.push-type.liveactivity"])
                    + body,
                "/3/device/" + token
            ),
            (
                .topicDisallowed,
                pushHeaders(
                    authorization: valid,
                    replacing: ["apns-topic": "com.example.blocked.push-type.liveactivity"]
                )
                    + body,
                "/3/device/" + token
            ),
            (
                .deviceTokenNotForTopic,
                pushHeaders(authorization: valid, replacing: ["apns-topic": "com.example.app"]) + body,
                "/3/device/" + token
            ),
            (
                .badPriority, pushHeaders(authorization: valid, replacing: ["apns-priority": "7"]) + body,
                "/3/device/" + token
            ),
            (
                .badExpirationDate, pushHeaders(authorization: valid, extra: ["apns-expiration: soon"]) + body,
                "/3/device/" + token
            ),
            (
                .badCollapseId,
                pushHeaders(authorization: valid, extra: ["apns-collapse-id: " + String(repeating: "c", count: 65)])
                    + body,
                "/3/device/" + token
            ),
            (.badDeviceToken, pushHeaders(authorization: valid) + body, "/3/device/0f0f"),
            (.payloadEmpty, pushHeaders(authorization: valid) + ["-X", "POST"], "/3/device/" + token),
            (
                .payloadTooLarge,
                pushHeaders(authorization: valid) + ["--data-binary", "@" + directory.file("large.json")],
                "/3/device/" + token
            ),
        ]
        for (reason, arguments, path) in cases {
            let response = try request(["--http2"] + arguments, path: path)
            let headers = response.headers.lowercased()
            XCTAssertEqual(response.status, String(reason.status), "\(reason)")
            XCTAssertEqual(response.body, #"{"reason":"\#(reason.rawValue)"}"#, "\(reason)")
            XCTAssertTrue(headers.contains("content-type: application/json"), "\(reason): \(headers)")
            let id = headers.split(separator: "\r\n").first { $0.hasPrefix("apns-id: ") }?.dropFirst("apns-id: ".count)
            XCTAssertTrue(APNsID.isValid(String(id ?? "")), "\(reason): \(headers)")
        }
    }
}

extension CurlAgainstMockTests {
    /// A Live Activity push without a timestamp: APNs (and the mock) accept it and the device
    /// drops it, which the mock counts; in strict mode the mock refuses it with its own reason.
    /// A provider token whose `iat` is a string of digits, as kalyke-apns writes it, is accepted
    /// as APNs accepts it, and counted as irregular in `/stats`.
    func testAStringIssuedAtIsAcceptedAndCountedAsIrregular() throws {
        let tokens = mock.tokens()
        let header = Base64.encode(Array(#"{"alg":"ES256","kid":"\#(tokens.keyID)"}"#.utf8), .url)
        let now = Int64(Date().timeIntervalSince1970)
        let claims = Base64.encode(Array(#"{"iss":"\#(tokens.teamID)","iat":"\#(now)"}"#.utf8), .url)
        let signature = try tokens.key.sign(Array("\(header).\(claims)".utf8))
        let bearer = "bearer \(header).\(claims).\(Base64.encode(signature, .url))"
        let payload = #"{"aps":{"event":"update","timestamp":1,"content-state":{"minute":1}}}"#
        let answer = try request(
            ["--http2"] + pushHeaders(authorization: bearer) + ["--data", payload],
            path: "/3/device/" + token
        )
        XCTAssertEqual(answer.status, "200", answer.body)
        XCTAssertEqual(mock.server.stats.snapshot().acceptedIrregular, ["iat_string": 1])
        let stats = try request(["--http2"], path: "/stats")
        XCTAssertTrue(stats.body.contains(#""accepted_irregular":{"iat_string":1}"#), stats.body)
    }

    func testContentADeviceWouldDropIsCountedOrInStrictModeRefused() throws {
        let push = { [self] in
            try request(
                ["--http2"]
                    + pushHeaders(
                        authorization: "bearer "
                            + (try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt)
                    ) + ["--data", #"{"aps":{"event":"update","content-state":{}}}"#],
                path: "/3/device/" + token
            )
        }
        XCTAssertEqual(try push().status, "200")
        XCTAssertEqual(mock.server.stats.snapshot().liveActivityWouldDrop, ["MissingTimestamp": 1])

        mock = try MockFixture(strictLiveActivityContent: true)
        try directory.write("ca.pem", mock.server.certificatePEM)
        let refused = try push()
        XCTAssertEqual(refused.status, "400")
        XCTAssertEqual(refused.body, #"{"reason":"MockRejectedLiveActivity"}"#)
        XCTAssertEqual(mock.server.stats.snapshot().liveActivityWouldDrop, ["MissingTimestamp": 1])
    }
}

extension CurlAgainstMockTests {
    /// `--token-rule 4100=Unregistered`: a token with that prefix gets 410 and its timestamp.
    func testATokenRuleAnswersItsPrefix() throws {
        mock = try MockFixture(tokenRules: [try TokenRule(parsing: "4100=Unregistered")])
        try directory.write("ca.pem", mock.server.certificatePEM)
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let ruled = try request(
            ["--http2"] + pushHeaders(authorization: "bearer " + jwt) + ["--data", "{}"],
            path: "/3/device/4100" + token.dropFirst(4)
        )
        XCTAssertEqual(ruled.status, "410")
        XCTAssertTrue(ruled.body.hasPrefix(#"{"reason":"Unregistered","timestamp":"#), ruled.body)
        let other = try request(
            ["--http2"] + pushHeaders(authorization: "bearer " + jwt) + ["--data", "{}"],
            path: "/3/device/" + token
        )
        XCTAssertEqual(other.status, "200")
    }

    /// A client that names its host with `host` rather than `:authority` (RFC 9113 allows
    /// either): Debian's python3-h2, driven by `Tests/Scripts/push_with_host_header.py`.
    func testAPushNamingItsHostWithAHostHeaderIsAnswered() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/push_with_host_header.py").path
        let python = ExternalProgram(path: "/usr/bin/python3")
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let output = try python.run([
            script, String(mock.server.port), directory.file("ca.pem"), "bearer " + jwt, token,
        ])
        XCTAssertEqual(output.status, 0, "python3-h2 (Scripts/install-deps.sh) is needed: \(output.stderr)")
        XCTAssertTrue(output.stdout.hasPrefix("status=200 apns-id="), output.stdout + output.stderr)
        XCTAssertEqual(mock.server.stats.snapshot().accepted, 1)
    }

    func testAListedUnregisteredTokenGets410SinceTheStart() throws {
        let listed = String(repeating: "ab", count: 32)
        mock = try MockFixture(unregisteredTokens: [listed])
        try directory.write("ca.pem", mock.server.certificatePEM)
        let jwt = try mock.tokens().token(now: Int64(Date().timeIntervalSince1970)).jwt
        let push = { [self] (path: String) in
            try request(["--http2"] + pushHeaders(authorization: "bearer " + jwt) + ["--data", "{}"], path: path)
        }
        let unregistered = try push("/3/device/" + listed.uppercased())
        XCTAssertEqual(unregistered.status, "410")
        let body = try JSONSerialization.jsonObject(with: Data(unregistered.body.utf8)) as? [String: Any]
        XCTAssertEqual(body?["reason"] as? String, "Unregistered")
        let since = try XCTUnwrap(body?["timestamp"] as? Int)
        XCTAssertEqual(Double(since) / 1000, Date().timeIntervalSince1970, accuracy: 60, "the mock's start, in ms")
        XCTAssertEqual(try push("/3/device/" + token).status, "200")
    }
}

/// The mock run by a user that is not root, as on a developer's laptop or a CI runner without
/// privileges: it once set SO_DEBUG (socket-level option 1) where it meant
/// TCP_NODELAY, which only a privileged user may set, and so closed every connection it accepted.
final class MockAsUnprivilegedUserTests: XCTestCase {
    func testAUserThatIsNotRootIsAnswered() throws {
        guard getuid() == 0, let setpriv = ExternalProgram.onPath("setpriv") else {
            throw XCTSkip("needs root, to run the mock as nobody with setpriv")
        }
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let mock = try RunningProgram(
            setpriv,
            ["--reuid=65534", "--regid=65534", "--clear-groups", ExternalProgram.pushbench.path, "mock", "--port", "0"]
        )
        defer { mock.interrupt() }
        let line = try XCTUnwrap(mock.waitForLine(containing: "listening on"), mock.output)
        let origin = try XCTUnwrap(line.split(separator: " ").first { $0.hasPrefix("https://") })
        let answer = try curl.run(["-sk", "--http2", "-o", "/dev/null", "-w", "%{http_code}", "\(origin)/stats"])
        XCTAssertEqual(answer.stdout, "200", answer.stderr)
    }
}
