import Foundation
import TestSupport
import XCTest

/// A test of the built `pushbench` binary, with a scratch directory removed afterwards.
class PushbenchTestCase: XCTestCase {
    /// Scratch space for the test's files.
    var directory: TemporaryDirectory!
    /// The binary under test.
    let pushbench = ExternalProgram.pushbench

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
