import Foundation
import TestSupport
import XCTest

/// A test of the built `pushbench` binary, with a scratch directory removed afterwards.
class PushbenchTestCase: XCTestCase {
    /// Scratch space for the test's files.
    var directory: TemporaryDirectory!
    /// The binary under test.
    let pushbench = ExternalProgram.pushbench

    /// The checkout the tests run from, for its scripts, baselines and README.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        XCTAssertTrue(
            FileManager.default.isExecutableFile(atPath: pushbench.path),
            "build pushbench first: \(pushbench.path)"
        )
    }

    override func tearDown() {
        directory.remove()
    }

    /// Starts `pushbench mock` on a free port with its certificate written to `mock.pem` in the
    /// scratch folder, and `arguments` added.
    /// - Returns: the running mock, its origin and the certificate's path.
    func startMock(_ arguments: [String]) throws -> (mock: RunningProgram, origin: String, certificate: String) {
        let certificate = directory.file("mock.pem")
        let mock = try RunningProgram(pushbench, ["mock", "--port", "0", "--cert-out", certificate] + arguments)
        let listening = try XCTUnwrap(mock.waitForLine(containing: "listening on https://"), mock.output)
        let origin = String(try XCTUnwrap(listening.split(separator: " ").first { $0.hasPrefix("https://") }))
        return (mock, origin, certificate)
    }

    /// Asserts a failure that a user can read: non-zero exit, a short message, no crash report.
    func assertCleanFailure(
        _ output: ExternalProgram.Output,
        mentions: String,
        file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertNotEqual(output.status, 0, file: file, line: line)
        XCTAssertTrue(output.stderr.contains(mentions), "stderr: \(output.stderr)", file: file, line: line)
        for crash in ["Fatal error", "Stack dump", "backtrace", "Current stack trace"] {
            XCTAssertFalse(output.stderr.contains(crash), "stderr: \(output.stderr)", file: file, line: line)
        }
    }
}
