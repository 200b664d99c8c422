import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `pushbench profile --as-apple`: senders that dial Apple's own host names, unmodified, in a
/// sealed network where those names are the mock. Each name plays its environment, the report
/// says which name each push came to, nothing outside is reachable but `--reach`, and a user
/// that is not root gets the same network (or one line saying why not).
final class ProfileAsAppleTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private var reports: TemporaryDirectory!
    private let python = ExternalProgram(path: "/usr/bin/python3")

    override func setUpWithError() throws {
        reports = try TemporaryDirectory()
        let httpx = try python.run(["-c", "import httpx, h2, cryptography"])
        guard httpx.status == 0 else {
            throw XCTSkip("needs Debian's python3-httpx, python3-h2 and python3-cryptography")
        }
    }

    override func tearDown() {
        reports.remove()
    }

    private static func path(_ relative: String) -> String { repository.appendingPathComponent(relative).path }

    /// Runs `profile --as-apple` with `arguments` (options, then `--` and the sender), through
    /// `wrapper` when given; returns its output and the run's folder.
    private func profile(
        _ arguments: [String],
        environment: [String: String] = [:],
        through wrapper: [String] = []
    ) throws -> (output: ExternalProgram.Output, folder: String?) {
        let command =
            [ExternalProgram.pushbench.path, "profile", "--as-apple", "--reports-dir", reports.path] + arguments
        let output =
            try wrapper.isEmpty
            ? ExternalProgram.pushbench.run(Array(command.dropFirst()), environment: environment, timeout: 240)
            : ExternalProgram(path: wrapper[0]).run(
                Array(wrapper.dropFirst()) + command,
                environment: environment,
                timeout: 240
            )
        // The run's folder: the only folder in the reports' (a test may keep a file there too).
        let runs = ((try? FileManager.default.contentsOfDirectory(atPath: reports.path)) ?? []).filter {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: "\(reports.path)/\($0)", isDirectory: &folder)
                && folder.boolValue
        }
        return (output, runs.first.map { "\(reports.path)/\($0)" })
    }

    private func summary(in folder: String?) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(try XCTUnwrap(folder))/summary.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Requests and accepted pushes by `name:port (environment)`, for the names that took any.
    private func hostsUsed(_ summary: [String: Any]) throws -> [String: [Int]] {
        let sealed = try XCTUnwrap(summary["sealed_network"] as? [String: Any])
        let hosts = try XCTUnwrap(sealed["hosts"] as? [[String: Any]])
        XCTAssertEqual(
            hosts.count,
            12,
            "three push names and two broadcast send names on 443 and 2197, and the two broadcast management hosts"
        )
        var used: [String: [Int]] = [:]
        for host in hosts where (host["connections"] as? Int ?? 0) > 0 {
            let key = "\(host["name"] ?? ""):\(host["port"] ?? 0) (\(host["environment"] ?? ""))"
            used[key] = [host["requests"] as? Int ?? -1, host["accepted"] as? Int ?? -1]
        }
        return used
    }

    /// The sender's one JSON line on standard output.
    private func probed(_ folder: String?) throws -> [String: Any] {
        let text = try String(contentsOfFile: "\(try XCTUnwrap(folder))/sender.stdout.log", encoding: .utf8)
        let line = try XCTUnwrap(text.split(separator: "\n").last)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func testAnHttpxSenderThatHardCodesApplesHostIsProfiledUnmodified() throws {
        let sender = Self.path("examples/as-apple/httpx_sender.py")
        let source = try String(contentsOfFile: sender, encoding: .utf8)
        XCTAssertTrue(source.contains("APNS = \"https://api.push.apple.com\""))
        for variable in ["PUSHBENCH_APNS", "PUSHBENCH_CA_FILE", "SSL_CERT_FILE"] {
            XCTAssertFalse(source.contains("env[\"\(variable)"), "the sender reads no \(variable)")
        }
        let run = try profile(["--requests", "200", "--", python.path, sender])
        XCTAssertEqual(run.output.status, 0, run.output.stdout + run.output.stderr)
        XCTAssertTrue(run.output.stderr.contains("sealed network (as root)"), run.output.stderr)
        let summary = try summary(in: run.folder)
        let events = try XCTUnwrap(summary["events"] as? [String: Int])
        XCTAssertEqual(events["received"], 200)
        XCTAssertEqual(events["missing"], 0)
        XCTAssertEqual(try hostsUsed(summary), ["api.push.apple.com:443 (production)": [200, 200]])
        XCTAssertTrue(
            run.output.stdout.contains(
                "sealed  The sender ran in a sealed network where Apple's names were the mock: api.push.apple.com:443 took 200 requests (200 accepted, production); nothing else was reachable from inside."
            ),
            run.output.stdout
        )
    }

    /// Each name plays its environment (sandbox and development answer `apns-unique-id`), on 443
    /// and 2197; the host's loopback, Apple's own address and DNS stay out of reach, and a
    /// listener on the host's loopback sees no connection; a `--reach` address answers.
    func testEachNameItsEnvironmentAndNothingOutsideButReach() throws {
        let outside = try LoopbackListener()
        let reachPort = try LoopbackListener()
        let port = reachPort.port
        reachPort.close()
        let website = try RunningProgram(python, ["-m", "http.server", "--bind", "127.0.0.1", String(port)])
        defer { website.interrupt() }
        XCTAssertNotNil(website.waitForLine(containing: "Serving HTTP", timeout: 10) ?? "waited", "the site outside")
        let run = try profile(
            [
                "--requests", "4", "--reach", "127.0.0.1:\(port)", "--", python.path,
                Self.path("Tests/Scripts/as_apple_probe.py"), "send",
            ],
            environment: ["PROBE_OUTSIDE": String(outside.port), "PROBE_REACH": "127.0.0.1:\(port)"]
        )
        XCTAssertEqual(run.output.status, 0, run.output.stdout + run.output.stderr)
        let seen = try probed(run.folder)
        let pushes = try XCTUnwrap(seen["pushes"] as? [[String: Any]])
        XCTAssertEqual(pushes.map { $0["status"] as? Int }, [200, 200, 200, 200])
        XCTAssertEqual(
            pushes.map { $0["unique_id"] as? Bool },
            [true, false, true, false],
            "only development answers apns-unique-id"
        )
        XCTAssertTrue((seen["outside_loopback"] as? String ?? "").hasPrefix("ConnectionRefusedError"), "\(seen)")
        XCTAssertTrue((seen["apple_address"] as? String ?? "").contains("unreachable"), "\(seen)")
        XCTAssertEqual(seen["example.com"] as? String, "gaierror", "no name outside the hosts file resolves")
        XCTAssertEqual(seen["reach"] as? Int, 200)
        XCTAssertEqual(seen["system_bundle"] as? Int, 200, "the system bundle inside holds the mock's CA")
        XCTAssertEqual(
            seen["broadcast_hosts"] as? [String: String],
            [
                "api-broadcast.push.apple.com": "400 ChannelNotRegistered",
                "api-broadcast.sandbox.push.apple.com": "400 ChannelNotRegistered",
            ],
            "the broadcast names of Apple's sample answer as APNs does"
        )
        XCTAssertEqual(outside.acceptWaiting(), 0, "the host's loopback saw no connection from inside")
        let summary = try summary(in: run.folder)
        XCTAssertEqual(
            try hostsUsed(summary),
            [
                "api.sandbox.push.apple.com:443 (development)": [1, 1],
                "api.push.apple.com:2197 (production)": [1, 1],
                "api.development.push.apple.com:2197 (development)": [1, 1],
                "api.push.apple.com:443 (production)": [1, 1],
                "api-broadcast.push.apple.com:443 (production)": [1, 0],
                "api-broadcast.sandbox.push.apple.com:443 (development)": [1, 0],
            ]
        )
        let sealed = try XCTUnwrap(summary["sealed_network"] as? [String: Any])
        let reach = try XCTUnwrap((sealed["reach"] as? [[String: Any]])?.first)
        XCTAssertEqual(reach["address"] as? String, "127.0.0.1:\(port)")
        XCTAssertEqual(reach["connections"] as? Int, 1)
    }

    /// A sender that trusts only another CA, as one that pins Apple's certificate does, fails
    /// loudly: the first screen names the handshakes that never finished, by host.
    /// `--host NAME=ADDRESS`: a service that hard-codes its upstream (a feed it polls) reaches a
    /// stub its command starts inside at that name; without it, the name resolves to nothing.
    func testAStubTheCommandStartsAnswersAtTheNameAServiceHardCodes() throws {
        let fetched = reports.file("fetched-from-feed")
        let missing = reports.file("unknown-name")
        let script = """
            \(python.path) -m http.server 8765 --bind 127.0.0.1 >/dev/null 2>&1 &
            for i in $(seq 50); do curl -sf -o \(fetched) http://feed.example.test:8765/ && break; sleep 0.1; done
            curl -sf http://other.example.test:8765/ || echo unresolved > \(missing)
            \(python.path) \(Self.path("examples/as-apple/httpx_sender.py")); status=$?
            kill %1; exit $status
            """
        let run = try profile([
            "--requests", "20", "--host", "feed.example.test=127.0.0.1", "--", "/bin/sh", "-c", script,
        ])
        XCTAssertEqual(run.output.status, 0, run.output.stdout + run.output.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: fetched), "the stub answered at its name")
        XCTAssertTrue(FileManager.default.fileExists(atPath: missing), "a name not given resolves to nothing")
        XCTAssertTrue(run.output.stderr.contains("stubs inside at feed.example.test=127.0.0.1"), run.output.stderr)
        let refused = try ExternalProgram.pushbench.run(
            ["profile", "--as-apple", "--host", "feed.example.test=10.0.0.5", "--", "true"]
        )
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains("--host feed.example.test=10.0.0.5: 10.0.0.5 is not a loopback address"),
            refused.stderr
        )
    }

    func testASenderThatPinsAnotherCertificateFailsByHost() throws {
        let bundle = try String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)
        let end = try XCTUnwrap(bundle.range(of: "-----END CERTIFICATE-----\n"))
        let pin = try reports.write("pinned.pem", Array(bundle[..<end.upperBound].utf8))
        let run = try profile(
            ["--requests", "1", "--", python.path, Self.path("Tests/Scripts/as_apple_probe.py"), "pin"],
            environment: ["PROBE_PIN": pin]
        )
        XCTAssertEqual(run.output.status, 3, run.output.stdout + run.output.stderr)
        XCTAssertTrue(
            run.output.stdout.contains(
                "FAILED: the sender exited with status 1; 1 connection to api.push.apple.com:443 never finished the TLS handshake with the mock"
            ),
            run.output.stdout
        )
        XCTAssertTrue(run.output.stdout.contains("never finished TLS with the mock"), run.output.stdout)
        XCTAssertTrue((try probed(run.folder)["error"] as? String ?? "").contains("CERTIFICATE_VERIFY_FAILED"))
    }

    /// A service as it ships (`Tests/Services/netmera-sqlite`: its tokens in SQLite, Apple's host
    /// hard-coded, its own variables set by a deployment line), profiled through its API with the
    /// devices: the operator's calls and the token reports reach it inside its sealed network,
    /// its database is a file inside, and every update reaches its activity.
    func testADatabaseBackedServiceRunsTheLifecycleSealed() throws {
        let scenario = try reports.write(
            "matches.yaml",
            Array("name: three-matches\ncohorts:\n  - kind: football\n    activities: 300\n    groups: 3\n".utf8)
        )
        let run = try profile(
            [
                "--api", Self.path("examples/netmera-lifecycle.yaml"), "--scenario", scenario, "--activities", "300",
                "--requests", "5", "--time-scale", "600", "--report-delay", "0.2s,0.5s", "--settle", "5s", "--",
                Self.path("Tests/Services/netmera-sqlite/deploy.sh"), reports.file("tokens.sqlite3"),
            ],
            environment: ["NETMERA_API_KEY": "netmera-secret-5521"]
        )
        XCTAssertEqual(run.output.status, 0, run.output.stdout + run.output.stderr)
        let summary = try summary(in: run.folder)
        let lifecycle = try XCTUnwrap(summary["lifecycle"] as? [String: Any])
        let storm = try XCTUnwrap(lifecycle["storm"] as? [String: Any])
        XCTAssertEqual((storm["reports"] as? [String: Any])?["by_status"] as? [String: Int], ["200": 300])
        XCTAssertEqual((lifecycle["activities"] as? [String: Any])?["updated"] as? Int, 300)
        XCTAssertEqual((summary["fanout"] as? [String: Any])?["missing"] as? Int, 0)
        XCTAssertEqual(try hostsUsed(summary), ["api.push.apple.com:443 (production)": [800, 800]])
        let rows = try python.run([
            "-c",
            "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM activities').fetchone()[0])",
            reports.file("tokens.sqlite3"),
        ])
        XCTAssertEqual(
            rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            "300",
            "the service kept its tokens in its database"
        )
        if let pgrep = ExternalProgram.onPath("pgrep") {
            let left = try pgrep.run(["-f", reports.file("tokens.sqlite3")])
            XCTAssertEqual(left.stdout, "", "the service and its process group were ended")
        }
    }

    /// A command that listens on one of Apple's ports inside fails, and the failure says why.
    func testACommandThatListensOnApplesPortIsToldWhy() throws {
        let run = try profile([
            "--requests", "1", "--", python.path, "-c", "import socket; socket.socket().bind(('0.0.0.0', 443))",
        ])
        XCTAssertEqual(run.output.status, 3, run.output.stdout + run.output.stderr)
        XCTAssertTrue(
            run.output.stdout.contains(
                "FAILED: the sender exited with status 1; it could not listen on a port: in its sealed network, 443, 2197, 2195 and 2196 are the mock's (Apple's ports), so listen on another"
            ),
            run.output.stdout
        )
    }

    /// A service whose API file names one of Apple's ports is refused before anything starts.
    func testAServiceOnApplesPortIsRefusedInOneLine() throws {
        let file = try String(contentsOfFile: Self.path("examples/netmera-api.yaml"), encoding: .utf8)
        let onApplesPort = try reports.write(
            "api.yaml",
            Array(file.replacingOccurrences(of: "${PUSHBENCH_SERVICE_PORT}", with: "2197").utf8)
        )
        let run = try profile(
            ["--api", onApplesPort, "--requests", "1", "--", "/bin/true"],
            environment: ["NETMERA_API_KEY": "netmera-secret-5521"]
        )
        XCTAssertEqual(run.output.status, 2, run.output.stdout + run.output.stderr)
        XCTAssertTrue(
            run.output.stderr.contains(
                "error: --as-apple: the service's API is on port 2197, which the mock holds for Apple's names in the sealed network"
            ),
            run.output.stderr
        )
        XCTAssertNil(run.folder, "nothing started")
    }

    /// A user that is not root gets the same sealed network, in a user namespace of its own.
    func testAUserThatIsNotRootGetsTheSameNetwork() throws {
        guard getuid() == 0, let setpriv = ExternalProgram.onPath("setpriv") else {
            throw XCTSkip("needs root, to run profile as nobody with setpriv")
        }
        chmod(reports.path, 0o777)
        let outside = try LoopbackListener()
        let run = try profile(
            ["--requests", "4", "--", python.path, Self.path("Tests/Scripts/as_apple_probe.py"), "send"],
            environment: ["PROBE_OUTSIDE": String(outside.port), "HOME": reports.path],
            through: [setpriv.path, "--reuid=65534", "--regid=65534", "--clear-groups"]
        )
        XCTAssertEqual(run.output.status, 0, run.output.stdout + run.output.stderr)
        XCTAssertTrue(run.output.stderr.contains("sealed network (a user namespace)"), run.output.stderr)
        XCTAssertEqual(try hostsUsed(try summary(in: run.folder)).values.map { $0[1] }.reduce(0, +), 4)
        XCTAssertEqual(outside.acceptWaiting(), 0)
    }

    /// Where the kernel lets a user that is not root make no user namespace, one line says which
    /// setting forbids it and what to do; nothing is started.
    func testWithoutUserNamespacesOneLineSaysWhyAndWhatToDo() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root, to take user namespaces away from nobody") }
        chmod(reports.path, 0o777)
        let run = try profile(
            ["--requests", "1", "--", "/bin/true"],
            environment: ["HOME": reports.path],
            through: [python.path, Self.path("Tests/Scripts/without_user_namespaces.py")]
        )
        XCTAssertEqual(run.output.status, 4, run.output.stdout + run.output.stderr)
        XCTAssertTrue(
            run.output.stderr.contains(
                "error: --as-apple needs a network of its own, and user.max_user_namespaces is 0, so a user that is not root cannot make one: run profile as root, or sudo sysctl -w user.max_user_namespaces=15000"
            ),
            run.output.stderr
        )
    }
}
