import Foundation
import TestSupport
import XCTest

/// `make lint`'s function-length check (`Scripts/function-length.py`): it fails on a body over
/// the limit, and braces in strings and comments do not fool it.
final class FunctionLengthCheckTests: XCTestCase {
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/function-length.py")
        .path

    /// A function whose body is `lines` lines, braces included, with braces in a string, a
    /// multi-line string and a comment that must not count.
    private func source(lines: Int) -> String {
        let filler = (0..<(lines - 7)).map { "    _ = \($0)" }.joined(separator: "\n")
        return """
            struct Sample {
                func long() {
                    let text = "{ not a brace"
                    // } nor this
                    let more = \"\"\"
                        }}}
                        \"\"\"
                \(filler)
                }
            }
            """
    }

    private func check(_ source: String, limit: Int) throws -> ExternalProgram.Output {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try directory.write("Sample.swift", Array(source.utf8))
        let python = try XCTUnwrap(ExternalProgram.onPath("python3"))
        return try python.run([Self.script, "--limit", String(limit), directory.path])
    }

    func testABodyOverTheLimitFailsWithItsLengthAndPlace() throws {
        let output = try check(source(lines: 12), limit: 11)
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertTrue(output.stdout.hasPrefix("12 "), output.stdout)
        XCTAssertTrue(output.stdout.contains("Sample.swift:2 func long"), output.stdout)
    }

    /// A signature over several lines with a closure as a default argument: its braces are not
    /// the body's, which is counted from the declaration.
    func testADefaultArgumentsClosureDoesNotEndTheCount() throws {
        let filler = (0..<8).map { "        _ = \($0)" }.joined(separator: "\n")
        let source = """
            struct Sample {
                func long(
                    notice: (String) -> Void = { _ in }
                ) {
            \(filler)
                }
            }
            """
        let output = try check(source, limit: 11)
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        XCTAssertTrue(output.stdout.hasPrefix("12 "), output.stdout)
        XCTAssertTrue(output.stdout.contains("Sample.swift:2 func long"), output.stdout)
    }

    /// A protocol's requirement has no body: the next type's brace is not its, so a long type
    /// after it is not measured as one function.
    func testARequirementWithoutABodyIsNotGivenTheNextTypesBraces() throws {
        let members = (0..<12).map { "    var v\($0) = \($0)" }.joined(separator: "\n")
        let source = """
            protocol Sample {
                func requirement()
                init(value: Int)
            }
            struct Long {
            \(members)
            }
            """
        let output = try check(source, limit: 5)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertEqual(output.stdout, "")
    }

    /// A closure held in a stored property is a body like any other; a local `let`'s closure is
    /// part of its function's.
    func testAClosureInAStoredPropertyIsMeasured() throws {
        let filler = (0..<8).map { "        _ = \($0)" }.joined(separator: "\n")
        let source = """
            struct Sample {
                let handler: () -> Void = {
            \(filler)
                    print("done")
                }
                func short() {
                    let local = {
                        print("in")
                    }
                    local()
                }
            }
            """
        let output = try check(source, limit: 10)
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        XCTAssertEqual(
            output.stdout.split(separator: "\n").count,
            1,
            "the local closure is short()'s: \(output.stdout)"
        )
        XCTAssertTrue(output.stdout.hasPrefix("11 "), output.stdout)
        XCTAssertTrue(output.stdout.contains("Sample.swift:2 let handler"), output.stdout)
    }

    func testABodyAtTheLimitPasses() throws {
        let output = try check(source(lines: 12), limit: 12)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertEqual(output.stdout, "")
    }
}
