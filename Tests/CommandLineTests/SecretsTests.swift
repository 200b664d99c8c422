import Foundation
import TestSupport
import XCTest

/// PushBench handles real Apple signing keys: nothing it prints or writes may hold the key or a
/// bearer token, and a key any user can read gets a warning.
final class SecretsTests: PushbenchTestCase {
    /// A fresh P-256 `.p8` readable by its owner only, and its base64 body lines.
    private func makeKey() throws -> (path: String, body: [String]) {
        let openssl = try XCTUnwrap(ExternalProgram.onPath("openssl"))
        let p8 = directory.file("AuthKey_ABC123DEFG.p8")
        let made = try openssl.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(chmod(p8, 0o600), 0)
        let body = try String(contentsOfFile: p8, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("-----") }
        XCTAssertFalse(body.isEmpty)
        return (p8, body)
    }

    /// Every file under the scratch folder but the key itself, by path.
    private func writtenFiles(except key: String) throws -> [String: String] {
        var files: [String: String] = [:]
        let root = URL(fileURLWithPath: directory.path)
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walker?.nextObject() as? URL {
            guard url.path != key, (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else {
                continue
            }
            files[url.path] = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        }
        return files
    }

    func testNoOutputOrFileHoldsTheKeyOrABearerToken() throws {
        let (p8, body) = try makeKey()
        let identity = ["--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"]
        let (mock, origin, certificate) = try startMock(
            ["--auth-key", p8, "--record", directory.file("traffic.csv"), "--report", directory.file("received")]
                + identity
        )
        var outputs: [String: String] = [:]
        let external = try pushbench.run(
            ["run", "--endpoint", origin, "--ca-file", certificate, "--auth-key", p8, "--requests", "200"]
                + ["--reports-dir", directory.file("runs")] + identity
        )
        XCTAssertEqual(external.status, 0, external.stderr)
        outputs["run against the mock"] = external.stdout + external.stderr
        let dryRun = try pushbench.run(
            ["run", "--endpoint", origin, "--ca-file", certificate, "--auth-key", p8, "--dry-run"] + identity
        )
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        XCTAssertTrue(dryRun.stdout.contains("authorization: bearer "), dryRun.stdout)
        outputs["dry run"] = dryRun.stdout + dryRun.stderr
        let embedded = try pushbench.run(
            ["run", "--auth-key", p8, "--requests", "200", "--reports-dir", directory.file("runs")] + identity
        )
        XCTAssertEqual(embedded.status, 0, embedded.stderr)
        outputs["run with the embedded mock"] = embedded.stdout + embedded.stderr
        mock.interrupt()
        XCTAssertEqual(mock.waitForExit(), 130)
        outputs["the mock's output"] = mock.output

        let files = try writtenFiles(except: p8)
        XCTAssertTrue(files.keys.contains { $0.hasSuffix("traffic.csv") }, "the recording is scanned")
        XCTAssertTrue(files.keys.contains { $0.hasSuffix("summary.json") }, "the reports are scanned")
        XCTAssertTrue(files.keys.contains { $0.hasSuffix("budget_summary.json") }, "the budget files are scanned")
        // A JWT's header is base64url of `{"`, so every bearer token starts with eyJ.
        let secrets = ["PRIVATE KEY", "eyJ"] + body
        for (name, text) in outputs.merging(files, uniquingKeysWith: +) {
            for secret in secrets {
                XCTAssertFalse(text.contains(secret), "\(name) holds \(secret.prefix(12))…")
            }
        }
    }

    func testAKeyEveryoneCanReadIsWarnedAbout() throws {
        let (p8, _) = try makeKey()
        let identity = ["--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"]
        let quiet = try pushbench.run(["run", "--auth-key", p8, "--dry-run"] + identity)
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("warning"), quiet.stderr)

        XCTAssertEqual(chmod(p8, 0o644), 0)
        let warned = try pushbench.run(["run", "--auth-key", p8, "--dry-run"] + identity)
        XCTAssertEqual(warned.status, 0, warned.stderr)
        XCTAssertTrue(
            warned.stderr.contains("warning: signing key \(p8) is readable by every user (mode 644): chmod 600 it"),
            warned.stderr
        )
    }
}
