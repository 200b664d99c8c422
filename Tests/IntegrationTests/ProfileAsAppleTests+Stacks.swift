import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The senders of `examples/as-apple/` in the stacks teams run, each profiled unmodified under
/// `--as-apple`: Go's standard library, Node's built-in http2, Java's HttpClient and curl in a
/// shell loop (Python's httpx is in `ProfileAsAppleTests`). Each hard-codes Apple's host, and each
/// trusts the mock through what its stack reads.
final class ProfileAsAppleStackTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private var reports: TemporaryDirectory!
    /// Where a sender is built.
    private var built: TemporaryDirectory!

    override func setUpWithError() throws {
        reports = try TemporaryDirectory()
        built = try TemporaryDirectory()
    }

    override func tearDown() {
        reports.remove()
        built.remove()
    }

    private static func path(_ relative: String) -> String { repository.appendingPathComponent(relative).path }

    /// Profiles `sender` sealed with `requests` pushes, and checks that every event arrived at
    /// `api.push.apple.com:443` and nowhere else.
    private func assertProfiledUnmodified(_ sender: [String], requests: Int = 200) throws {
        let output = try ExternalProgram.pushbench.run(
            ["profile", "--as-apple", "--requests", String(requests), "--reports-dir", reports.path, "--"] + sender,
            timeout: 240
        )
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: reports.path).first)
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(reports.path)/\(run)/summary.json"))
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let events = try XCTUnwrap(summary["events"] as? [String: Int])
        XCTAssertEqual(events["received"], requests, output.stdout)
        XCTAssertEqual(events["missing"], 0)
        let hosts = try XCTUnwrap((summary["sealed_network"] as? [String: Any])?["hosts"] as? [[String: Any]])
        let used = hosts.filter { ($0["requests"] as? Int ?? 0) > 0 }
        XCTAssertEqual(used.count, 1, "\(used)")
        XCTAssertEqual(used.first?["name"] as? String, "api.push.apple.com")
        XCTAssertEqual(used.first?["port"] as? Int, 443)
        XCTAssertEqual(used.first?["accepted"] as? Int, requests)
    }

    /// The example's source dials Apple's host and reads no variable naming the mock or its CA.
    private func assertHardCodesApplesHost(_ relative: String) throws {
        let source = try String(contentsOfFile: Self.path(relative), encoding: .utf8)
        XCTAssertTrue(source.contains("https://api.push.apple.com"), "\(relative) dials Apple's host")
        for variable in ["PUSHBENCH_APNS_URL", "PUSHBENCH_APNS_HOST", "PUSHBENCH_APNS_PORT", "PUSHBENCH_CA_FILE"] {
            XCTAssertFalse(source.contains(variable), "\(relative) reads \(variable)")
        }
    }

    /// Runs `script` with /bin/sh and its arguments, for a build step; fails with its output.
    private func build(_ script: String, _ arguments: [String]) throws {
        let output = try ExternalProgram(path: "/bin/sh").run(["-c", script] + arguments, timeout: 300)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
    }

    func testGoWithOnlyItsStandardLibraryTrustsTheMockThroughSSLCertFile() throws {
        guard ExternalProgram.onPath("go") != nil else { throw XCTSkip("needs Debian's golang-go") }
        try assertHardCodesApplesHost("examples/as-apple/go-sender/main.go")
        let binary = built.file("go-sender")
        try build(#"cd "$0" && go build -o "$1" ."#, [Self.path("examples/as-apple/go-sender"), binary])
        try assertProfiledUnmodified([binary])
    }

    func testNodeWithItsBuiltInHTTP2TrustsTheMockThroughNodeExtraCACerts() throws {
        guard let node = ExternalProgram.onPath("node") ?? ExternalProgram.onPath("nodejs") else {
            throw XCTSkip("needs Debian's nodejs")
        }
        try assertHardCodesApplesHost("examples/as-apple/node_sender.js")
        try assertProfiledUnmodified([node.path, Self.path("examples/as-apple/node_sender.js")])
    }

    func testJavaWithItsHttpClientTrustsTheMockThroughJavaToolOptions() throws {
        guard let java = ExternalProgram.onPath("java"), ExternalProgram.onPath("javac") != nil else {
            throw XCTSkip("needs Debian's default-jdk-headless")
        }
        try assertHardCodesApplesHost("examples/as-apple/JavaSender.java")
        let classes = built.file("java-sender")
        try build(#"javac -d "$1" "$0""#, [Self.path("examples/as-apple/JavaSender.java"), classes])
        try assertProfiledUnmodified([java.path, "-cp", classes, "JavaSender"])
    }

    func testCurlInAShellLoopTrustsTheMockThroughCurlCABundle() throws {
        try assertHardCodesApplesHost("examples/as-apple/curl_sender.sh")
        try assertProfiledUnmodified([Self.path("examples/as-apple/curl_sender.sh")])
    }
}
