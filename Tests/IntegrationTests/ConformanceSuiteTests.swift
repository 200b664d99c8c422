import Foundation
import MockAPNs
import MockFaults
import TestSupport
import Wire
import XCTest

/// Third-party APNs clients from PyPI (kalyke-apns, aioapns, httpx with h2) against the mock over
/// real sockets: every answer must be the one Apple documents, and `docs/client-conformance.md`
/// must be the matrix this run produced (`Tests/Conformance/conformance.py`).
///
/// The clients, pinned in `Tests/Conformance/requirements.txt`, are installed into a virtual
/// environment under `.build/`, made again when the pins change. A failure to install them
/// fails these tests with one line; they are never skipped.
final class ConformanceSuiteTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private static let suite = repository.appendingPathComponent("Tests/Conformance")
    private static let matrixFile = repository.appendingPathComponent("docs/client-conformance.md")
    /// Set to 1 to write the matrix into `docs/` instead of comparing (`make conformance-matrix`).
    private static let writeMatrixVariable = "PUSHBENCH_WRITE_CONFORMANCE_MATRIX"
    private static let channelLimit = 5

    private var mock: MockFixture!
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        mock = try MockFixture(
            tokenRules: [try TokenRule(parsing: "4100=Unregistered"), try TokenRule(parsing: "e0e0=ExpiredToken")],
            channelPort: 0,
            channelLimit: Self.channelLimit
        )
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
        mock = nil
    }

    func testEveryClientCaseGetsAppleDocumentedAnswer() throws {
        let python = try Self.clientEnvironment()
        let output = try python.run(
            [Self.suite.appendingPathComponent("conformance.py").path, try writeConfiguration(), results, matrix],
            timeout: 300
        )
        XCTAssertEqual(output.status, 0, "the conformance suite did not finish: \(output.stderr.suffix(2000))")
        let rows = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: results))) as? [[String: Any]]
        )
        XCTAssertGreaterThanOrEqual(rows.count, 60)
        let clients = Set(rows.compactMap { $0["client"] as? String })
        XCTAssertEqual(clients.count, 3, "three clients: \(clients.sorted())")
        for row in rows
        where Self.answer(row, "expected_status", "expected_reason") != Self.answer(row, "status", "reason") {
            XCTFail(
                "\(row["client"] ?? "?"), \(row["case"] ?? "?"): Apple documents "
                    + "\(Self.answer(row, "expected_status", "expected_reason")), the mock answered "
                    + Self.answer(row, "status", "reason")
            )
        }
        let produced = try String(contentsOfFile: matrix, encoding: .utf8)
        if ProcessInfo.processInfo.environment[Self.writeMatrixVariable] == "1" {
            try produced.write(to: Self.matrixFile, atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(
            try String(contentsOf: Self.matrixFile, encoding: .utf8),
            produced,
            "docs/client-conformance.md is not what this run produced; `make conformance-matrix` writes it"
        )
        let stats = mock.server.stats.snapshot()
        XCTAssertGreaterThan(stats.connectionsWithoutALPN, 0, "aioapns offers no ALPN and must be served HTTP/2")
        XCTAssertGreaterThan(stats.acceptedIrregular["iat_string", default: 0], 0, "kalyke's iat is a string")
    }

    /// A team points kalyke-apns at `pushbench mock --report`: 30 pushes of Live Activity traffic
    /// are all accepted, each counted as irregular for its string `iat`, and its starts as ones a
    /// device would drop, since kalyke leaves out `attributes-type` and `attributes`; the report
    /// says so beside what was received.
    func testKalykeTrafficToTheMockCommandIsAcceptedAndCountedAsIrregular() throws {
        let python = try Self.clientEnvironment()
        let report = directory.file("received")
        let key = try directory.write("key.p8", try mock.signingKey.pkcs8PEM())
        let certificate = directory.file("mock.pem")
        let server = try RunningProgram(
            .pushbench,
            [
                "mock", "--port", "0", "--cert-out", certificate, "--auth-key", key, "--key-id", MockFixture.keyID,
                "--team-id", MockFixture.teamID, "--report", report,
            ]
        )
        let listening = try XCTUnwrap(server.waitForLine(containing: "listening on https://"), server.output)
        let origin = try XCTUnwrap(listening.split(separator: " ").first { $0.hasPrefix("https://") }, listening)
        let port = try XCTUnwrap(origin.split(separator: ":").last.flatMap { Int($0) }, listening)
        let output = try python.run(
            [
                Self.suite.appendingPathComponent("conformance.py").path,
                try writeConfiguration(port: port, certificate: certificate), "--kalyke-traffic", "30",
            ],
            timeout: 120
        )
        XCTAssertEqual(output.status, 0, output.stderr.suffix(2000).description)
        server.interrupt()
        XCTAssertEqual(server.waitForExit(), 130, server.output)
        XCTAssertTrue(server.output.contains("stopped: 30 pushes answered, 30 accepted"), server.output)
        XCTAssertTrue(server.output.contains("accepted although irregular"), server.output)
        XCTAssertEqual(
            try String(contentsOfFile: report + "/irregular.csv", encoding: .utf8),
            "counter,kind,pushes,share_percent\r\naccepted_irregular,iat_string,30,100.00\r\n"
                + "live_activity_would_drop,StartWithoutAttributesType,10,33.33\r\n"
        )
        let page = try String(contentsOfFile: report + "/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains("StartWithoutAttributesType"))
        // The sender doctor on a sender no one here wrote: kalyke's send_message opens a client
        // (a connection) and signs a token for every push, and the script writes states as
        // kalyke's examples do, without a stale-date.
        let practices = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: report + "/practices.json"))
        )
        let findings = try XCTUnwrap((practices as? [String: Any])?["findings"] as? [[String: Any]])
        XCTAssertEqual(
            findings.compactMap { $0["practice"] as? String },
            ["connection-per-push", "token-per-push", "stale-date"],
            "\(findings)"
        )
        XCTAssertTrue(
            server.output.contains("sender doctor: 3 findings: connection-per-push, token-per-push, stale-date"),
            server.output
        )
        XCTAssertTrue(page.contains("Opens a new connection for (nearly) every push"))
    }

    private var results: String { directory.file("results.json") }
    private var matrix: String { directory.file("matrix.md") }

    /// Writes the keys, the CA and `config.json` the suite reads, for the in-process mock unless
    /// a port and certificate are given; returns the config's path.
    private func writeConfiguration(port: Int? = nil, certificate: String? = nil) throws -> String {
        let token = String(repeating: "ab", count: 32)
        let configuration: [String: Any] = [
            "port": port ?? mock.server.port,
            "channel_port": try XCTUnwrap(mock.server.channelPort),
            "ca_file": try certificate ?? directory.write("ca.pem", mock.server.certificatePEM),
            "key_file": try directory.write("key.p8", try mock.signingKey.pkcs8PEM()),
            "wrong_key_file": try directory.write("wrong.p8", try ES256PrivateKey().pkcs8PEM()),
            "key_id": MockFixture.keyID,
            "team_id": MockFixture.teamID,
            "bundle": "com.example.app",
            "token": token,
            "start_token": "cd" + token.dropFirst(2),
            "unregistered_token": "4100" + token.dropFirst(4),
            "expired_token": "e0e0" + token.dropFirst(4),
            "channel_limit": Self.channelLimit,
        ]
        return try directory.write("config.json", Array(try JSONSerialization.data(withJSONObject: configuration)))
    }

    private static func answer(_ row: [String: Any], _ status: String, _ reason: String) -> String {
        [row[status], row[reason]].compactMap { value -> String? in
            (value as? Int).map(String.init) ?? value as? String
        }.joined(separator: " ")
    }

    /// The virtual environment's python with the pinned clients, made when missing or when the
    /// pins changed since it was made.
    static func clientEnvironment() throws -> ExternalProgram {
        let environment = repository.appendingPathComponent(".build/conformance-venv").path
        let python = ExternalProgram(path: environment + "/bin/python")
        let requirements = suite.appendingPathComponent("requirements.txt").path
        let pins = try String(contentsOfFile: requirements, encoding: .utf8)
        let stamp = environment + "/requirements.installed"
        if (try? String(contentsOfFile: stamp, encoding: .utf8)) == pins { return python }
        let system = try XCTUnwrap(ExternalProgram.onPath("python3"), "python3 is needed for the conformance suite")
        try? FileManager.default.removeItem(atPath: environment)
        let made = try system.run(["-m", "venv", environment])
        guard made.status == 0 else {
            throw SetupFailure("could not make a virtual environment with \(system.path): \(lastLine(made.stderr))")
        }
        let installed = try python.run(
            ["-m", "pip", "install", "--disable-pip-version-check", "-q", "-r", requirements],
            timeout: 600
        )
        guard installed.status == 0 else {
            throw SetupFailure("the conformance clients did not install from PyPI: \(lastLine(installed.stderr))")
        }
        try pins.write(toFile: stamp, atomically: true, encoding: .utf8)
        return python
    }

    private static func lastLine(_ text: String) -> String {
        text.split(separator: "\n").last.map(String.init) ?? "(nothing printed)"
    }

    /// Why the suite could not start: thrown, so the test fails with this one line.
    private struct SetupFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
