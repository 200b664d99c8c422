import Foundation
import TestSupport
import XCTest

/// What a CI job needs of every command before anything else: a key it cannot use is refused at
/// once with exit 2, and a signal stops it within 2 s with 130 or 143, wherever it is.
final class FailFastTests: PushbenchTestCase {
    /// Keys PushBench cannot sign or verify ES256 with, made by openssl: RSA, P-384, an RSA public
    /// key, and a P-256 public key where a private one is needed.
    private func unusableKeys() throws -> [(name: String, path: String, publicOnly: Bool)] {
        let openssl = try XCTUnwrap(ExternalProgram.onPath("openssl"))
        let made: [(String, [String], Bool)] = [
            ("rsa.p8", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], false),
            ("p384.p8", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], false),
            ("p256.p8", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], false),
        ]
        for (name, arguments, _) in made {
            XCTAssertEqual(try openssl.run(arguments + ["-out", directory.file(name)]).status, 0, name)
        }
        for (name, from) in [("rsa-public.pem", "rsa.p8"), ("p256-public.pem", "p256.p8")] {
            let output = try openssl.run(["pkey", "-in", directory.file(from), "-pubout", "-out", directory.file(name)])
            XCTAssertEqual(output.status, 0, output.stderr)
        }
        return [
            ("RSA", directory.file("rsa.p8"), false), ("P-384", directory.file("p384.p8"), false),
            ("an RSA public key", directory.file("rsa-public.pem"), true),
            ("a P-256 public key", directory.file("p256-public.pem"), true),
        ]
    }

    func testEveryCommandRefusesAKeyItCannotUseBeforeWork() throws {
        let key = ["--key-id", "ABC1234567", "--team-id", "TEAM123456"]
        for (name, path, publicOnly) in try unusableKeys() {
            var commands: [(String, [String])] = [
                (
                    "run",
                    ["run", "--requests", "10", "--reports-dir", directory.file("runs"), "--auth-key", path] + key
                ),
                (
                    "profile",
                    ["profile", "--reports-dir", directory.file("runs"), "--auth-key", path] + key + ["--", "true"]
                ),
            ]
            // The mock verifies with a public key too: only a P-256 one is its to take.
            if name != "a P-256 public key" {
                commands.append(("mock", ["mock", "--port", "0", "--auth-key", path] + key))
            }
            for (command, arguments) in commands {
                let began = Date()
                let output = try pushbench.run(arguments, timeout: 20)
                let seconds = Date().timeIntervalSince(began)
                XCTAssertEqual(output.status, 2, "\(command) with \(name): \(output.stderr)")
                XCTAssertLessThan(seconds, 10, "\(command) with \(name) took \(seconds) s")
                assertCleanFailure(
                    output,
                    mentions: publicOnly && command != "mock" ? "not a PEM private key" : "is unusable"
                )
                XCTAssertFalse(output.stderr.contains("BEGIN"), "no key material is echoed")
            }
        }
    }

    /// Files given where a certificate or a private key belongs that are not one are refused
    /// before any work: a key as a CA file, a public key as a TLS key, a key as a certificate.
    func testCertificateAndTLSKeyFilesAreCheckedBeforeWork() throws {
        let tls = try LoopbackCertificate(
            certificatePath: directory.file("server.pem"),
            keyPath: directory.file("server.key")
        )
        let keys = try unusableKeys()
        let cases: [(arguments: [String], message: String)] = [
            (
                ["run", "--endpoint", "https://127.0.0.1:9", "--ca-file", tls.keyPath, "--requests", "5"],
                "CA file \(tls.keyPath) is unusable: not a PEM certificate"
            ),
            (
                ["mock", "--port", "0", "--tls-cert", tls.keyPath, "--tls-key", tls.keyPath],
                "certificate \(tls.keyPath) is unusable: not a PEM certificate"
            ),
            (
                ["mock", "--port", "0", "--tls-cert", tls.certificatePath, "--tls-key", keys[3].path],
                "TLS key \(keys[3].path) is unusable: not a PEM private key"
            ),
            (
                ["mock", "--port", "0", "--tls-cert", tls.certificatePath, "--tls-key", keys[1].path],
                "TLS key \(keys[1].path) is unusable: the private key is not the certificate's"
            ),
        ]
        for (arguments, message) in cases {
            let output = try pushbench.run(arguments, timeout: 20)
            XCTAssertEqual(output.status, 2, "\(arguments): \(output.stderr)")
            assertCleanFailure(output, mentions: message)
            XCTAssertFalse(output.stdout.contains("listening on"), "\(arguments) started: \(output.stdout)")
            XCTAssertFalse(output.stderr.contains("sending the"), "\(arguments) started: \(output.stderr)")
        }
    }

    /// SIGTERM (and Ctrl-C) mid-work ends each command within 2 s, with 143 (130), wherever it is:
    /// the mock serving, a run sending, a profile writing its sender's events and one waiting for
    /// its sender, a budget simulating, tokens writing, hotpath measuring.
    func testASignalStopsEveryCommandWithinTwoSeconds() throws {
        let reports = directory.file("runs")
        let cases: [(arguments: [String], busy: String, signal: Int32)] = [
            (["mock", "--port", "0"], "counters: GET /stats", SIGTERM),
            (["mock", "--port", "0"], "counters: GET /stats", SIGINT),
            (["run", "--rate", "500", "--no-budget", "--reports-dir", reports], "sending the", SIGTERM),
            (["profile", "--activities", "200000", "--reports-dir", reports, "--", "sleep", "60"], "", SIGTERM),
            (
                ["profile", "--activities", "20", "--reports-dir", reports, "--", "sleep", "60"], "started sleep",
                SIGTERM
            ),
            (["budget", "--activities", "3000000", "--reports-dir", reports], "simulating", SIGTERM),
            (["tokens", "-n", "100000000", "-o", directory.file("tokens.txt")], "", SIGTERM),
            (["hotpath", "--seconds", "10s", "--threads", "1"], "", SIGTERM),
        ]
        for (arguments, busy, signal) in cases {
            let program = try RunningProgram(pushbench, arguments, captureStderr: true)
            if busy.isEmpty {
                usleep(1_500_000)
            } else {
                XCTAssertNotNil(program.waitForLine(containing: busy, timeout: 60), "\(arguments): \(program.output)")
            }
            let began = Date()
            signal == SIGTERM ? program.terminate() : program.interrupt()
            let status = program.waitForExit(timeout: 30)
            let seconds = Date().timeIntervalSince(began)
            XCTAssertEqual(status, 128 + signal, "\(arguments): \(program.output)")
            // 2 s is the promise; a loaded machine running a debug build gets a second more.
            XCTAssertLessThan(seconds, 3, "\(arguments) took \(seconds) s to stop")
        }
    }

    /// A profile's own key is never in its report folder, where CI artifacts would carry it, and
    /// is gone once the profile is, even when it was killed with SIGKILL.
    func testAProfilesThrowawayKeyLeavesWithItEvenAfterSIGKILL() throws {
        let folder = directory.file("run")
        let seen = directory.file("key-path")
        let profile = try RunningProgram(
            pushbench,
            [
                "profile", "--activities", "5", "--run-dir", folder, "--", "sh", "-c",
                "echo $PUSHBENCH_AUTH_KEY > \(seen); sleep 60",
            ],
            captureStderr: true
        )
        XCTAssertNotNil(profile.waitForLine(containing: "started sh", timeout: 60), profile.output)
        var keyPath = ""
        for _ in 0..<250 where keyPath.isEmpty {
            keyPath = (try? String(contentsOfFile: seen, encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? ""
            usleep(20_000)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: keyPath), "the sender reads its key at \(keyPath)")
        XCTAssertFalse(keyPath.hasPrefix(folder), "the key is outside the report folder: \(keyPath)")
        let mode = try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        profile.killAtOnce()
        _ = profile.waitForExit()
        var gone = false
        for _ in 0..<100 where !gone {
            gone = !FileManager.default.fileExists(atPath: keyPath)
            usleep(20_000)
        }
        XCTAssertTrue(gone, "the watchdog removed \(keyPath) after SIGKILL")
        XCTAssertFalse(FileManager.default.fileExists(atPath: (keyPath as NSString).deletingLastPathComponent))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder)
        XCTAssertFalse(left.contains { $0.hasSuffix(".p8") }, "\(left)")
    }

    /// One command driving each status of cli.md's table (1 is GateOptionsTests', 130 and 143
    /// the signal test's): what a CI job branches on.
    func testEachExitStatusOfTheTable() throws {
        let reports = directory.file("runs")
        let busy = try LoopbackListener()
        defer { busy.close() }
        let shard = directory.file("shard-0")
        XCTAssertEqual(
            try pushbench.run(["run", "--shard", "0/2", "--requests", "20", "--no-budget", "--run-dir", shard]).status,
            0
        )
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (["run", "--requests", "20", "--no-budget", "--reports-dir", reports], 0, ""),
            (["run", "--scenario", directory.file("missing.yaml")], 2, "and no file"),
            (
                ["run", "--requests", "20", "--no-budget", "--unregistered", "1", "--reports-dir", reports], 3,
                "FAILED",
            ),
            (["mock", "--port", String(busy.port)], 4, "the mock could not start"),
            (["merge", "--partial", shard, "-o", directory.file("merged")], 5, ""),
            (["run", "--no-such-flag"], 64, "Unknown option '--no-such-flag'"),
            (["budget", "--per-hour", "0"], 64, "--per-hour must be a positive number, not 0"),
            (["run", "--warmup", "5s", "--duration", "2s"], 64, "--warmup 5s is not shorter than --duration 2s"),
            (["run", "--rate", "-5"], 64, "--rate -5: a negative number is never taken"),
        ]
        for (arguments, status, says) in cases {
            let output = try pushbench.run(arguments, timeout: 60)
            XCTAssertEqual(output.status, status, "\(arguments): \(output.stderr)")
            XCTAssertTrue(
                says.isEmpty || output.stderr.contains(says) || output.stdout.contains(says),
                "\(arguments): \(output.stderr)"
            )
        }
    }
}
