import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `pushbench run` against targets that misbehave below HTTP (`Tests/Scripts/hostile_target.py`,
/// over real sockets and TLS), with both transports: every run stops within its bound, its
/// books balance, its failures carry one class whatever the transport, and a run in which
/// nothing succeeded exits 3.
final class HostileTargetTests: PushbenchTestCase {
    /// What a run against one target must show.
    private struct Expectation {
        let mode: String
        /// Failure classes the run may count (besides timeouts), per transport.
        let classes: [String: Set<String>]
        /// Whether some pushes succeed (the target answers a few before it misbehaves).
        let someSucceed: Bool
    }

    private static let expectations: [Expectation] = [
        .init(
            mode: "silent",
            classes: ["nghttp2": ["connect_timeout"], "curl": ["connect_timeout"]],
            someSucceed: false
        ),
        .init(
            mode: "backlog",
            classes: ["nghttp2": ["connect_timeout"], "curl": ["connect_timeout"]],
            someSucceed: false
        ),
        .init(mode: "tls-silent", classes: ["nghttp2": ["connection_lost"], "curl": []], someSucceed: false),
        .init(mode: "h2-silent", classes: ["nghttp2": [], "curl": []], someSucceed: false),
        .init(
            mode: "stop-reading",
            classes: ["nghttp2": ["connection_lost"], "curl": ["connection_lost"]],
            someSucceed: true
        ),
        .init(mode: "reset", classes: ["nghttp2": ["stream_reset"], "curl": ["stream_reset"]], someSucceed: false),
        .init(
            mode: "no-close-notify",
            classes: ["nghttp2": ["connection_lost"], "curl": ["connection_lost"]],
            someSucceed: true
        ),
    ]

    /// `--duration 2`: sending stops at 2 s and the drain lasts at most 2 s more; the run may
    /// also spend a second asking the target for a mock's /stats before it starts. Half a
    /// second more for a busy machine.
    private static let wallBound = 1.0 + 2 + 2 + 0.5

    func testEveryHostileTargetEndsInTimeWithBalancedBooksAndOneClassPerFailure() throws {
        let (certificate, key) = try makeCertificate()
        for expectation in Self.expectations {
            let target = try startTarget(expectation.mode, certificate: certificate, key: key)
            for transport in ["nghttp2", "curl"] {
                let label = "\(expectation.mode), \(transport)"
                let reports = directory.file("reports-\(expectation.mode)-\(transport)")
                let started = Date()
                let output = try pushbench.run(
                    runArguments(target.origin, certificate, transport, reports) + ["--duration", "2s"],
                    timeout: 30
                )
                let wall = Date().timeIntervalSince(started)
                XCTAssertLessThanOrEqual(wall, Self.wallBound, label)
                let summary = try readSummary(in: reports, label)
                let counts = try XCTUnwrap(summary["counts"] as? [String: Int], label)
                XCTAssertEqual(
                    counts["sent"],
                    (counts["succeeded"] ?? 0) + (counts["rejected"] ?? 0) + (counts["errored"] ?? 0)
                        + (counts["timed_out"] ?? 0),
                    "\(label): \(counts)"
                )
                XCTAssertGreaterThan(counts["sent"] ?? 0, 0, label)
                let classes = Set((summary["errored_by_kind"] as? [String: Int] ?? [:]).keys)
                XCTAssertTrue(classes.isSubset(of: expectation.classes[transport]!), "\(label): \(classes)")
                if expectation.someSucceed {
                    XCTAssertGreaterThan(counts["succeeded"] ?? 0, 0, label)
                    XCTAssertEqual(output.status, 0, "\(label): \(output.stderr)")
                } else {
                    XCTAssertEqual(counts["succeeded"], 0, label)
                    XCTAssertEqual(output.status, 3, "\(label): nothing succeeded, \(output.stderr)")
                    XCTAssertTrue(output.stdout.hasPrefix("FAILED"), "\(label): \(output.stdout)")
                    XCTAssertTrue(output.stdout.contains("latency        none"), "\(label): \(output.stdout)")
                }
                print(
                    "hostile target \(label): \(String(format: "%.2f", wall)) s, exit \(output.status), \(counts), \(classes.sorted())"
                )
            }
            target.stop()
        }
    }

    /// Issue 29's targets, which fail connections or streams in the ways APNs senders are judged
    /// by: the run keeps its `--duration`, reconnects after a backoff instead of in a storm (at
    /// most 10 connections a second on either transport), fails with the class of the cause, and
    /// exits 3 when nothing succeeded.
    func testConnectionTroubleKeepsTheRunsLengthAndBacksOff() throws {
        let (certificate, key) = try makeCertificate()
        // The classes each transport may report, and the one that must be at least 90% of the
        // failures where the transport can tell the cause. libcurl 7.88 never says GOAWAY: the
        // streams past its last stream ID read as refused (nghttp2 inside libcurl closes them
        // with REFUSED_STREAM), the closed connection as lost or, depending on what libcurl was
        // doing when it came, as an HTTP/2 framing error. Nor does it show the server's
        // SETTINGS, so pushes a server allows no stream for time out.
        let cases: [(mode: String, nghttp2: Set<String>, curl: Set<String>, cause: [String: String])] = [
            ("goaway", ["goaway"], ["refused_stream", "connection_lost", "protocol_error"], ["nghttp2": "goaway"]),
            ("zero-streams", ["no_streams"], [], ["nghttp2": "no_streams"]),
            (
                "alpn-http1", ["tls_handshake"], ["tls_handshake"],
                ["nghttp2": "tls_handshake", "curl": "tls_handshake"]
            ),
            (
                "refuse", ["refused_stream"], ["refused_stream"],
                ["nghttp2": "refused_stream", "curl": "refused_stream"]
            ),
            (
                "huge-body", ["response_too_large"], ["response_too_large"],
                ["nghttp2": "response_too_large", "curl": "response_too_large"]
            ),
        ]
        for (mode, nghttp2Classes, curlClasses, cause) in cases {
            let target = try startTarget(mode, certificate: certificate, key: key)
            for transport in ["nghttp2", "curl"] {
                let label = "\(mode), \(transport)"
                let reports = directory.file("trouble-\(mode)-\(transport)")
                target.program.clearOutput()
                let started = Date()
                // 107,000 pushes, more than any of these targets fails in 3 s: at 100 activities the
                // nghttp2 transport once had every push of huge-body answered in 2.96 s, and the run
                // ended with its scenario, before its --duration.
                let output = try pushbench.run(
                    runArguments(target.origin, certificate, transport, reports) + [
                        "--activities", "1000", "--duration", "3s",
                    ],
                    timeout: 30
                )
                let wall = Date().timeIntervalSince(started)
                XCTAssertGreaterThanOrEqual(wall, 3, "\(label): the run keeps its --duration")
                XCTAssertLessThanOrEqual(wall, 1.0 + 3 + 2 + 0.5, label)
                let summary = try readSummary(in: reports, label)
                let counts = try XCTUnwrap(summary["counts"] as? [String: Int], label)
                XCTAssertEqual(counts["succeeded"], 0, label)
                XCTAssertEqual(
                    counts["sent"],
                    (counts["rejected"] ?? 0) + (counts["errored"] ?? 0) + (counts["timed_out"] ?? 0),
                    "\(label): \(counts)"
                )
                XCTAssertEqual(output.status, 3, "\(label): \(output.stderr)")
                let classes = Set((summary["errored_by_kind"] as? [String: Int] ?? [:]).keys)
                let expected = transport == "nghttp2" ? nghttp2Classes : curlClasses
                XCTAssertTrue(classes.isSubset(of: expected), "\(label): \(classes)")
                XCTAssertEqual(classes.isEmpty, expected.isEmpty, "\(label): \(classes)")
                if let cause = cause[transport] {
                    let byKind = summary["errored_by_kind"] as? [String: Int] ?? [:]
                    XCTAssertGreaterThanOrEqual(
                        Double(byKind[cause] ?? 0),
                        0.9 * Double(counts["errored"] ?? 0),
                        "\(label): the cause names the failures, \(byKind)"
                    )
                }
                let accepted = target.program.output.components(separatedBy: "accepted").count - 1
                XCTAssertLessThanOrEqual(Double(accepted) / wall, 10, "\(label): \(accepted) connections")
                XCTAssertFalse(
                    target.program.output.contains("request over HTTP/1.1: POST"),
                    "\(label): no push is sent to a server that did not agree to HTTP/2"
                )
                print(
                    "trouble \(label): \(String(format: "%.2f", wall)) s, exit \(output.status), \(counts), "
                        + "\(classes.sorted()), \(accepted) connections accepted"
                )
            }
            target.stop()
        }
    }

    /// Ctrl-C and SIGTERM end a run that is waiting on a target that never answers, within the
    /// drain time (2 s) plus one second, with the report written and the books balanced.
    func testASignalEndsARunAgainstASilentTargetWithinTheDrain() throws {
        let (certificate, key) = try makeCertificate()
        for (mode, signal, status) in [("silent", SIGINT, Int32(130)), ("h2-silent", SIGTERM, Int32(143))] {
            let target = try startTarget(mode, certificate: certificate, key: key)
            for transport in ["nghttp2", "curl"] {
                let label = "\(mode), \(transport)"
                let reports = directory.file("signal-\(mode)-\(transport)")
                let run = try RunningProgram(
                    pushbench,
                    runArguments(target.origin, certificate, transport, reports) + ["--timeout", "60s"]
                )
                // The state to wait for: the run's own two connections have reached the target
                // (the first connection is the probe for a mock's /stats, before the run starts).
                XCTAssertTrue(target.waitForConnections(3), "\(label): \(target.program.output)")
                let signalled = Date()
                kill(run.processIdentifier, signal)
                XCTAssertEqual(run.waitForExit(timeout: 30), status, label)
                let stopping = Date().timeIntervalSince(signalled)
                XCTAssertLessThanOrEqual(stopping, 2 + 1, label)
                let counts = try XCTUnwrap(try readSummary(in: reports, label)["counts"] as? [String: Int], label)
                XCTAssertEqual(counts["succeeded"], 0, label)
                XCTAssertEqual(
                    counts["sent"],
                    (counts["errored"] ?? 0) + (counts["timed_out"] ?? 0),
                    "\(label): what was still open counts as timed out"
                )
                print("signal \(signal) against \(label): exit after \(String(format: "%.2f", stopping)) s, \(counts)")
                target.program.clearOutput()
            }
            target.stop()
        }
    }

    private func runArguments(
        _ origin: String,
        _ certificate: String,
        _ transport: String,
        _ reports: String
    )
        -> [String]
    {
        [
            "run", "--endpoint", origin, "--ca-file", certificate, "--transport", transport, "--activities", "100",
            "--connections", "2", "--streams", "10", "--connect-timeout", "1s", "--ping-interval", "500ms",
            "--timeout", "1s", "--no-budget", "--reports-dir", reports,
        ]
    }

    private struct Target {
        let program: RunningProgram
        let origin: String
        func stop() { program.killAtOnce() }

        /// Waits until the target has accepted `count` connections since its output was cleared.
        func waitForConnections(_ count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if program.output.components(separatedBy: "accepted").count > count { return true }
                usleep(20_000)
            }
            return false
        }
    }

    private func startTarget(_ mode: String, certificate: String, key: String) throws -> Target {
        let script = Self.repository.appendingPathComponent("Tests/Scripts/hostile_target.py").path
        let program = try RunningProgram(
            ExternalProgram(path: "/usr/bin/python3"),
            [script, mode, certificate, key],
            captureStderr: true
        )
        let line = try XCTUnwrap(program.waitForLine(containing: "listening on"), program.output)
        let port = try XCTUnwrap(line.split(separator: " ").last, line)
        return Target(program: program, origin: "https://127.0.0.1:\(port)")
    }

    /// A P-256 certificate for 127.0.0.1 made by openssl, and its key.
    private func makeCertificate() throws -> (String, String) {
        let tls = try LoopbackCertificate(
            certificatePath: directory.file("target.pem"),
            keyPath: directory.file("target-key.pem")
        )
        return (tls.certificatePath, tls.keyPath)
    }

    private func readSummary(in reports: String, _ label: String) throws -> [String: Any] {
        let runs = try FileManager.default.contentsOfDirectory(atPath: reports)
        let run = try XCTUnwrap(runs.first, "\(label): no report folder")
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(reports)/\(run)/summary.json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any], label)
    }
}
