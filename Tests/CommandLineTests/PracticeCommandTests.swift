import Foundation
import TestSupport
import XCTest

/// `pushbench run --practice` against the embedded mock: the run says what it did wrong on
/// purpose, what it cost, and what the sender doctor made of its traffic.
final class PracticeCommandTests: PushbenchTestCase {
    func testAPracticeRunShowsTheMistakeItsCostAndTheDoctorsFinding() throws {
        let reports = directory.file("runs")
        let output = try pushbench.run(
            [
                "run", "--activities", "50", "--requests", "300", "--no-budget", "--practice", "token-per-push",
                "--reports-dir", reports,
            ]
        )
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("practices      token-per-push"), output.stdout)
        XCTAssertTrue(output.stdout.contains("sender doctor  1 finding: token-per-push"), output.stdout)
        let folder = reports + "/" + (try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: reports).first))
        let page = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains("<h2>Mistakes made on purpose</h2>"), page)
        XCTAssertTrue(page.contains("TooManyProviderTokenUpdates"), "the cost: the refusals")
        XCTAssertTrue(page.contains("Signs a new provider token for (nearly) every push"), "the doctor's finding")
        let summary = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: folder + "/summary.json"))
        )
        let parameters = try XCTUnwrap((summary as? [String: Any])?["parameters"] as? [String: Any])
        XCTAssertEqual(parameters["practices"] as? [String], ["token-per-push"])
        XCTAssertEqual(parameters["jwt_mode"] as? String, "per-request")
    }

    func testAPracticeTowardAppleOrAnUnknownOneIsRefused() throws {
        let tokens = try directory.write("tokens.txt", Array((String(repeating: "ab", count: 32) + "\n").utf8))
        let openssl = try XCTUnwrap(ExternalProgram.onPath("openssl"))
        let p8 = directory.file("AuthKey.p8")
        XCTAssertEqual(
            try openssl.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8]).status,
            0
        )
        let apple = try pushbench.run([
            "run", "--endpoint", "sandbox", "--tokens", tokens, "--auth-key", p8, "--key-id", "ABC123DEFG",
            "--team-id", "DEF123GHIJ", "--bundle-id", "com.example.app", "--practice", "one-stream", "--dry-run",
        ])
        XCTAssertNotEqual(apple.status, 0)
        XCTAssertTrue(apple.stderr.contains("point it at a mock, not at Apple"), apple.stderr)
        let unknown = try pushbench.run(["run", "--practice", "sloppy"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("unknown practice 'sloppy'"), unknown.stderr)
    }
}
