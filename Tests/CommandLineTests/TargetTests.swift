import Foundation
import TestSupport
import XCTest

/// Runs toward Apple's hosts refuse what would harm real devices, and `--dry-run` shows what
/// would be sent; `--tokens` addresses real tokens (here at the embedded mock).
final class TargetTests: PushbenchTestCase {
    private func writeTokens(_ count: Int) throws -> String {
        let path = directory.file("devices.txt")
        let lines = ["# three test devices"] + (0..<count).map { String(repeating: String($0 + 1), count: 64) }
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func writeKey() throws -> String {
        let openssl = try XCTUnwrap(ExternalProgram.onPath("openssl"))
        let p8 = directory.file("AuthKey_ABC123DEFG.p8")
        let made = try openssl.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8])
        XCTAssertEqual(made.status, 0)
        return p8
    }

    func testAppleHostsRefuseSyntheticTokensDefaultsFloodsAndUnverifiedTLS() throws {
        assertCleanFailure(
            try pushbench.run(["run", "--endpoint", "production"]),
            mentions: "Apple's servers must not receive synthetic tokens: give --tokens FILE"
        )
        let tokens = try writeTokens(3)
        let key = try writeKey()
        let signed = ["--tokens", tokens, "--auth-key", key, "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"]
        assertCleanFailure(
            try pushbench.run(["run", "--endpoint", "sandbox"] + signed),
            mentions: "give --bundle-id: the topic must be your app's"
        )
        assertCleanFailure(
            try pushbench.run(
                ["run", "--endpoint", "production", "--bundle-id", "com.acme.app", "--rate", "500"] + signed
            ),
            mentions: "capped at 50 pushes/s"
        )
        for trustOption in [["--insecure"], ["--ca-file", key]] {
            assertCleanFailure(
                try pushbench.run(
                    ["run", "--endpoint", "sandbox", "--bundle-id", "com.acme.app"] + signed + trustOption
                ),
                mentions: "the certificate is always verified against the system's trust store"
            )
        }
        assertCleanFailure(
            try pushbench.run(["run", "--endpoint", "ftp://example.com"]),
            mentions: "--endpoint must be production, sandbox or https://host[:port]"
        )
    }

    func testADryRunShowsTheFirstRequestsWithTheBearerRedactedAndSendsNothing() throws {
        let tokens = try writeTokens(3)
        let key = try writeKey()
        let output = try pushbench.run([
            "run", "--endpoint", "production", "--tokens", tokens, "--auth-key", key, "--key-id", "ABC123DEFG",
            "--team-id",
            "DEF123GHIJ", "--bundle-id", "com.acme.app", "--dry-run",
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("open loop at 50/s"), output.stdout)
        XCTAssertTrue(
            output.stdout.contains("POST https://api.push.apple.com/3/device/" + String(repeating: "1", count: 64)),
            output.stdout
        )
        XCTAssertTrue(output.stdout.contains("authorization: bearer <redacted: ES256 provider token, kid ABC123DEFG"))
        XCTAssertTrue(output.stdout.contains("apns-topic: com.acme.app.push-type.liveactivity"))
        XCTAssertTrue(output.stdout.contains(#""event":"update""#), "starts are not sent to real tokens")
        XCTAssertFalse(output.stdout.contains("eyJ"), "no JWT is printed")
        XCTAssertFalse(output.stdout.contains(#""event":"start""#))
    }

    func testRealTokensAreAddressedAndStartsAreNotSent() throws {
        let tokens = try writeTokens(3)
        let output = try pushbench.run(["run", "--tokens", tokens, "--reports-dir", directory.path, "--no-budget"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let run = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0 != "devices.txt" }
        )
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + run + "/summary.json"))
            ) as? [String: Any]
        )
        XCTAssertEqual(summary["starts_not_sent"] as? Int, 3, "one start per activity, one activity per token")
        let counts = try XCTUnwrap(summary["counts"] as? [String: Int])
        XCTAssertEqual(counts["sent"], counts["succeeded"])
        XCTAssertGreaterThan(counts["sent"] ?? 0, 100, "a whole match of updates for three devices")
    }

    func testABadTokensFileNamesItsLine() throws {
        let path = directory.file("bad.txt")
        try "\(String(repeating: "a", count: 64))\nnot-a-token\n".write(toFile: path, atomically: true, encoding: .utf8)
        assertCleanFailure(
            try pushbench.run(["run", "--tokens", path]),
            mentions: "bad.txt line 2: not a hex device token"
        )
    }
}
