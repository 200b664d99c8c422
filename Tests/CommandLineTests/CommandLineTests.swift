import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The `pushbench` binary as a user runs it: outputs, files, exit codes, and one-line errors.
final class CommandLineTests: PushbenchTestCase {
    func testRunWritesAReportAndPrintsASummary() throws {
        let output = try pushbench.run(["run", "--requests", "400", "--reports-dir", directory.path])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("balanced"), output.stdout)
        XCTAssertTrue(output.stdout.contains("agrees with the client"), output.stdout)
        XCTAssertTrue(output.stderr.contains("mock APNs on https://127.0.0.1:"), output.stderr)
        let reportLine = try XCTUnwrap(output.stdout.split(separator: "\n").first { $0.hasPrefix("report: ") })
        let html = String(reportLine.dropFirst("report: ".count))
        XCTAssertTrue(FileManager.default.fileExists(atPath: html))
        let summaryPath = (html as NSString).deletingLastPathComponent + "/summary.json"
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath))) as? [String: Any]
        )
        XCTAssertEqual((summary["counts"] as? [String: Int])?["succeeded"], 400)
        let folder = (html as NSString).deletingLastPathComponent
        let hgrm = try String(contentsOfFile: folder + "/latency.hgrm", encoding: .utf8)
        XCTAssertTrue(hgrm.hasPrefix("       Value     Percentile TotalCount 1/(1-Percentile)\n\n"), hgrm)
        XCTAssertTrue(hgrm.contains("Total count    =          400]"), "wrk2's footer: \(hgrm)")
        XCTAssertEqual(
            try String(contentsOfFile: folder + "/outcomes.csv", encoding: .utf8),
            "outcome,reason,requests,share_percent\r\nsucceeded,,400,100.000\r\ntimed_out,,0,0.000\r\n"
        )
        let connections = try String(contentsOfFile: folder + "/connections.csv", encoding: .utf8)
        let answered = connections.split(separator: "\r\n").dropFirst().map { Int($0.split(separator: ",")[2]) ?? 0 }
        XCTAssertEqual(answered.reduce(0, +), 400, connections)
        XCTAssertFalse(
            try String(contentsOfFile: summaryPath, encoding: .utf8).contains("bearer"),
            "no bearer token in reports"
        )
        XCTAssertFalse(output.stdout.contains("eyJ") || output.stderr.contains("eyJ"), "no JWT printed")
    }

    func testAnUnwritableReportFolderIsRefusedBeforeTheRun() throws {
        let blocker = try directory.write("not-a-folder", Array("x".utf8))
        let output = try pushbench.run(["run", "--requests", "200", "--reports-dir", blocker + "/reports"])
        XCTAssertEqual(output.status, 2, output.stderr)
        assertCleanFailure(output, mentions: "--reports-dir \(blocker)/reports: \(blocker) is a file, not a folder")
        XCTAssertFalse(output.stdout.contains("succeeded"), "nothing was sent: \(output.stdout)")
    }

    /// A disk that fills while the report is written: a 16 KiB tmpfs, mounted where the machine
    /// lets a test mount one (CI's and a developer's, as root); skipped elsewhere.
    func testAFullDiskStillPrintsTheSummaryAndFails() throws {
        let mountPoint = directory.file("small-disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard let mount = ExternalProgram.onPath("mount"), let umount = ExternalProgram.onPath("umount"),
            try mount.run(["-t", "tmpfs", "-o", "size=16k", "tmpfs", mountPoint]).status == 0
        else { throw XCTSkip("this machine does not let the test mount a small tmpfs") }
        defer { _ = try? umount.run([mountPoint]) }

        let output = try pushbench.run(["run", "--requests", "300", "--reports-dir", mountPoint])
        assertCleanFailure(output, mentions: "No space left on device")
        XCTAssertTrue(output.stderr.contains("the summary above is complete"), output.stderr)
        XCTAssertTrue(output.stdout.contains("succeeded      300"), output.stdout)
        XCTAssertTrue(output.stdout.contains("accounting     balanced"), output.stdout)
    }

    func testAMissingKeyFileIsOneClearLine() throws {
        let output = try pushbench.run([
            "run", "--auth-key", directory.file("AuthKey_NOPE.p8"), "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ",
        ])
        assertCleanFailure(output, mentions: "AuthKey_NOPE.p8")
        XCTAssertEqual(output.stderr.split(separator: "\n").count, 1, output.stderr)
    }

    func testAMalformedKeyFileIsRefusedWithoutEchoingIt() throws {
        let path = try directory.write(
            "AuthKey_BAD.p8",
            Array("-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n".utf8)
        )
        let output = try pushbench.run(["run", "--auth-key", path, "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"])
        assertCleanFailure(output, mentions: "unusable")
        XCTAssertFalse(output.stderr.contains("c2VjcmV0"), "the key file's contents are never printed")
    }

    func testAbsurdSizesAreRefusedNotCrashedOn() throws {
        for arguments in [
            ["--connections", "1000", "--streams", "1000"],
            ["--connections", "2000000000000", "--streams", "2000000000000"],
        ] {
            let output = try pushbench.run(["run"] + arguments)
            assertCleanFailure(output, mentions: "at most 100000 requests in flight")
            XCTAssertEqual(output.stderr.split(separator: "\n").count, 1, output.stderr)
        }
    }

    func testAnUnknownOptionIsRefused() throws {
        let output = try pushbench.run(["run", "--frobnicate"])
        assertCleanFailure(output, mentions: "--frobnicate")
        XCTAssertEqual(output.stderr.split(separator: "\n").count, 1, output.stderr)
        XCTAssertTrue(output.stderr.contains("see 'pushbench run --help'"), output.stderr)
    }

    func testAPortInUseIsOneClearLine() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        XCTAssertTrue(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let output = try pushbench.run(["mock", "--port", String(port)], timeout: 30)
        assertCleanFailure(output, mentions: "port \(port) on 127.0.0.1 is already in use")
    }

    func testCtrlCWritesWhatWasMeasuredAndExits130() throws {
        let run = try RunningProgram(
            pushbench,
            ["run", "--activities", "100000", "--reports-dir", directory.path],
            captureStderr: true
        )
        // The state to wait for: the first progress line, once pushes have been answered.
        XCTAssertNotNil(run.waitForLine(containing: " done "), run.output)
        run.interrupt()
        XCTAssertEqual(run.waitForExit(), 130)
        XCTAssertTrue(run.output.contains("interrupted"), run.output)
        XCTAssertTrue(run.output.contains("balanced"), run.output)
        let reports = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(reports.count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path + "/" + reports[0] + "/summary.json"))
    }

    func testMockServesCurlWithAnAuthKeyAndStopsOnCtrlC() throws {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let openssl = try XCTUnwrap(ExternalProgram.onPath("openssl"))
        let p8 = directory.file("AuthKey_ABC123DEFG.p8")
        XCTAssertEqual(
            try openssl.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8]).status,
            0
        )
        let certificate = directory.file("mock.pem")
        let mock = try RunningProgram(
            pushbench,
            [
                "mock", "--port", "0", "--cert-out", certificate, "--auth-key", p8, "--key-id", "ABC123DEFG",
                "--team-id", "DEF123GHIJ",
            ]
        )
        let listening = try XCTUnwrap(mock.waitForLine(containing: "listening on https://"), mock.output)
        let origin = try XCTUnwrap(listening.split(separator: " ").first { $0.hasPrefix("https://") })
        // The line after "listening" may not have been read yet: wait for it too.
        XCTAssertNotNil(mock.waitForLine(containing: "verifying ES256 signatures of key ABC123DEFG"), mock.output)

        let unsigned = try curl.run([
            "-sS", "--http2", "--cacert", certificate, "-w", " %{http_code}", "-H",
            "apns-topic: a.push-type.liveactivity",
            "-H", "apns-push-type: liveactivity", "--data", "{}",
            "\(origin)/3/device/" + String(repeating: "a", count: 64),
        ])
        XCTAssertEqual(unsigned.stdout, #"{"reason":"MissingProviderToken"} 403"#, unsigned.stderr)
        let stats = try curl.run(["-sS", "--http2", "--cacert", certificate, "\(origin)/stats"])
        XCTAssertTrue(stats.stdout.contains(#""pushes":1"#), stats.stdout + stats.stderr)

        mock.interrupt()
        XCTAssertEqual(mock.waitForExit(), 130, "Ctrl-C is 130, as the exit statuses say")
        XCTAssertTrue(mock.output.contains("stopped: 1 pushes answered"), mock.output)
    }

    /// `--version` names the commit this checkout is at and the libraries built in, and a run's
    /// summary records the same build.
    func testVersionNamesTheCommitAndTheLibrariesAndSummariesRecordThem() throws {
        let output = try pushbench.run(["--version"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let root = Self.repository.path
        let git = try XCTUnwrap(ExternalProgram.onPath("git"))
        let head = try git.run(["-C", root, "rev-parse", "--short=12", "HEAD"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let version = try String(contentsOfFile: root + "/VERSION", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(output.stdout.hasPrefix("pushbench \(version) (commit \(head))\n"), output.stdout)
        for library in ["libcurl 7.", "libnghttp2 1.", "OpenSSL 3."] {
            XCTAssertTrue(output.stdout.contains(library), output.stdout)
        }
        let reports = directory.file("runs")
        XCTAssertEqual(try pushbench.run(["run", "--requests", "10", "--reports-dir", reports]).status, 0)
        let run = reports + "/" + (try FileManager.default.contentsOfDirectory(atPath: reports).first!)
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/summary.json")))
                as? [String: Any]
        )
        let build = try XCTUnwrap(summary["build"] as? [String: String])
        XCTAssertEqual(build["commit"], head)
        XCTAssertEqual(build["version"], version)
        XCTAssertEqual(Set(build.keys), ["version", "commit", "libcurl", "libnghttp2", "openssl"])
    }

    /// Clients that close without TLS close_notify (curl, h2load, PushBench's own) did nothing
    /// wrong: the mock's connection errors stay empty after them, so a real one stands out.
    func testCleanlyClosedConnectionsAreNoConnectionErrors() throws {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let (mock, origin, certificate) = try startMock([])
        let run = try pushbench.run([
            "run", "--endpoint", origin, "--ca-file", certificate, "--requests", "20", "--no-budget",
            "--reports-dir", directory.file("runs"),
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        _ = try curl.run(["-sS", "--http2", "--cacert", certificate, "\(origin)/stats"])
        let stats = try curl.run(["-sS", "--http2", "--cacert", certificate, "\(origin)/stats"])
        XCTAssertTrue(stats.stdout.contains(#""pushes":20"#), stats.stdout)
        XCTAssertTrue(stats.stdout.contains(#""connection_errors":{}"#), stats.stdout)
        mock.interrupt()
        XCTAssertEqual(mock.waitForExit(), 130, "Ctrl-C is 130, as the exit statuses say")
    }

    /// A sender pointed at `mock --report`: when the mock stops, the folder holds the server's
    /// view of exactly what arrived.
    func testMockReportShowsWhatASenderSent() throws {
        let report = directory.file("received")
        let (mock, origin, certificate) = try startMock(["--report", report])
        let run = try pushbench.run([
            "run", "--endpoint", origin, "--ca-file", certificate, "--activities", "50", "--requests", "300",
            "--reports-dir", directory.file("runs"),
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        mock.interrupt()
        XCTAssertEqual(mock.waitForExit(), 130, "Ctrl-C is 130, as the exit statuses say")
        XCTAssertTrue(mock.output.contains("traffic report: \(report)/report.html"), mock.output)
        let arrivals = try String(contentsOfFile: report + "/arrivals.csv", encoding: .utf8)
        let pushes = arrivals.split(separator: "\r\n").dropFirst().map { Int($0.split(separator: ",")[1]) ?? 0 }
        XCTAssertEqual(pushes.reduce(0, +), 300, arrivals)
        let priorities = try String(contentsOfFile: report + "/priorities.csv", encoding: .utf8)
        XCTAssertTrue(
            priorities.hasPrefix("apns_push_type,apns_priority,pushes,share_percent\r\nliveactivity,"),
            priorities
        )
        let cadence = try String(contentsOfFile: report + "/token_cadence.csv", encoding: .utf8)
        XCTAssertEqual(cadence.split(separator: "\r\n").count, 7, "a header and six percentiles")
        XCTAssertTrue(try String(contentsOfFile: report + "/report.html", encoding: .utf8).contains(">300<"))
    }

    func testMalformedPacingIsOneClearLine() throws {
        // Each malformed pacing and the words of its one-line error.
        let cases: [(arguments: [String], message: String)] = [
            (
                ["run", "--rate-profile", "0:100,10s:-5"],
                "--rate-profile 0:100,10s:-5: rates must be finite and not negative"
            ),
            (["run", "--rate", "100", "--time-scale", "60"], "are ways to pace pushes; give one"),
            (["run", "--burst", "penalty"], "--burst: no event kind 'penalty'; the kinds are start, kick-off"),
            (["run", "--burst", "goal", "--warmup", "2s"], "--warmup does not apply to --burst"),
            (["run", "--threads", "4", "--connections", "2"], "--connections must be at least --threads"),
            (["run", "--delivery", "both"], "--delivery both sets the two side by side in `pushbench budget`"),
            // profile's schedule is the same flags, with the same checks; what paces only a run,
            // and --requests for budget, which models the whole scenario, are not theirs at all
            (["profile", "--rate", "100", "--time-scale", "60", "--", "true"], "are ways to pace pushes; give one"),
            (["profile", "--rate", "0", "--", "true"], "--rate must be a positive number"),
            (["profile", "--burst", "goal", "--", "true"], "Unknown option '--burst'"),
            (["profile", "--warmup", "5s", "--", "true"], "Unknown option '--warmup'"),
            (["profile", "--rate-profile", "0:10", "--", "true"], "Unknown option '--rate-profile'"),
            (["budget", "--requests", "10"], "Unknown option '--requests'"),
        ]
        for (arguments, message) in cases {
            assertCleanFailure(try pushbench.run(arguments), mentions: message)
        }
    }

    /// profile's three modes, each asked for by its arguments, each refusing what belongs to
    /// another with one line.
    func testEachProfileModeRefusesTheOthersFlags() throws {
        let cases: [(arguments: [String], message: String)] = [
            (["profile"], "give the sender to run after --, such as: -- python3 sender.py"),
            (["profile", "--api", "examples/netmera-api.yaml"], "give --mock-port (where it sends its pushes)"),
            (
                [
                    "profile", "--api", "examples/netmera-api.yaml", "--mock-port", "9443", "--auth-key", "k.p8",
                    "--key-id", "ABC1234567", "--team-id", "TEAM123456", "--perf",
                ],
                "--perf samples a sender profile starts"
            ),
            (["profile", "--mock-port", "9443", "--", "true"], "are for a service that already runs (no COMMAND)"),
            (["profile", "--", "no-such-sender-here"], "no-such-sender-here: command not found on PATH"),
        ]
        for (arguments, message) in cases {
            assertCleanFailure(try pushbench.run(arguments), mentions: message)
        }
    }

    func testMalformedMockFlagsAreOneClearLine() throws {
        // Each malformed fault or key flag and the words of its one-line error.
        let cases: [(arguments: [String], message: String)] = [
            (["mock", "--token-rule", "41O=Unregistered"], "token rule '41O=Unregistered': expected PREFIX=REASON"),
            (["mock", "--latency", "fixed:20"], "'20' is not a duration such as 250us, 20ms or 1.5s"),
            (
                ["mock", "--error-rate", "BadTopic=0.1"],
                "REASON one of TooManyRequests, InternalServerError, ServiceUnavailable, Shutdown"
            ),
            (["mock", "--stall", "10s/1s"], "the stall must be positive and shorter than its period"),
            (["mock", "--keys", "/nonexistent/keys.json"], "keys file /nonexistent/keys.json: no such file"),
            (["mock", "--faults", "/nonexistent/storm.json"], "/nonexistent/storm.json: no such file"),
            (["mock", "--token-rate-limit", "0/60s"], "token rate limit '0/60s': expected PUSHES/WINDOW"),
            (["mock", "--unregistered-tokens", "/nonexistent/tokens.txt"], "/nonexistent/tokens.txt: no such file"),
        ]
        for (arguments, message) in cases {
            let output = try pushbench.run(arguments)
            assertCleanFailure(output, mentions: message)
            XCTAssertEqual(output.status, 2, "\(arguments): bad input, \(output.stderr)")
        }
    }

    /// A recording that the disk refuses mid-run fails while working (exit 4), not as the user's
    /// bad input: the path was good when the mock started.
    func testARecordingThatFillsTheDiskIsAFailureWhileWorking() throws {
        let curl = try XCTUnwrap(ExternalProgram.onPath("curl"))
        let certificate = directory.file("mock.pem")
        let mock = try RunningProgram(
            pushbench,
            ["mock", "--port", "0", "--cert-out", certificate, "--record", "/dev/full"],
            captureStderr: true
        )
        let listening = try XCTUnwrap(mock.waitForLine(containing: "listening on https://"), mock.output)
        let origin = try XCTUnwrap(listening.split(separator: " ").first { $0.hasPrefix("https://") })
        let push = try curl.run([
            "-sS", "--http2", "--cacert", certificate, "-o", "/dev/null", "-w", "%{http_code}", "-H",
            "apns-topic: a.push-type.liveactivity", "-H", "apns-push-type: liveactivity", "--data", "{}",
            "\(origin)/3/device/" + String(repeating: "a", count: 64),
        ])
        XCTAssertEqual(push.stdout, "403", push.stderr)
        mock.interrupt()
        XCTAssertEqual(mock.waitForExit(), 4, mock.output)
        XCTAssertTrue(mock.output.contains("cannot record traffic: recording stopped after"), mock.output)
    }

    /// `run --help` names every option and its default; the page it points to explains the rest.
    func testHelpExplainsTheDefaults() throws {
        let output = try pushbench.run(["run", "--help"])
        XCTAssertEqual(output.status, 0)
        let words = output.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in [
            "--scenario", "--activities",
            "(default: one per --tokens line; a scenario file's own; 1000 for a built-in scenario in run and profile,",
            "--time-scale",
            "--threads",
            "--connections", "--dry-run", "--retries", "--warmup", "--rate-profile", "--transport",
            "--connect-timeout", "--ping-interval", "docs/flags.md (pushbench run)",
        ] {
            XCTAssertTrue(words.contains(text), "help lacks \(text)")
        }
        let page = try String(contentsOf: Self.repository.appendingPathComponent("docs/flags.md"), encoding: .utf8)
        for text in [
            "embedded mock APNs starts", "no coordinated omission", "on Ctrl-C or SIGTERM 1 s more",
            "Exit status: 0 when pushes succeeded", "3 when the run ended but no push succeeded",
        ] {
            XCTAssertTrue(page.contains(text), "docs/flags.md lacks \(text)")
        }
    }
}
