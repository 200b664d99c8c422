import Foundation
import TestSupport
import XCTest

/// Every `--help` is one screen to start from: the usage and examples first, each option in a
/// line or two with its default once, examples never cut; the long explanations are in
/// docs/flags.md, written from the same text.
final class HelpScreenTests: PushbenchTestCase {
    /// Each command's path and its discussion's example lines, from the parser's description.
    private func commands() throws -> [(path: [String], examples: [String])] {
        let dump = try pushbench.run(["--experimental-dump-help"])
        let tool = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var found: [([String], [String])] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let discussion = command["discussion"] as? String ?? ""
            let examples = discussion.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  pushbench") }
            found.append((path, examples))
            for case let sub as [String: Any] in command["subcommands"] as? [Any] ?? []
            where sub["commandName"] as? String != "help" {
                walk(sub, path + [sub["commandName"] as? String ?? ""])
            }
        }
        walk(try XCTUnwrap(tool["command"] as? [String: Any]), [])
        return found
    }

    func testEveryHelpOpensWithItsUsageAndExamplesAndShowsEachDefaultOnce() throws {
        for (path, examples) in try commands() {
            let help = try pushbench.run(path + ["--help"])
            XCTAssertEqual(help.status, 0, "\(path)")
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            XCTAssertTrue(lines.first?.hasPrefix("USAGE: pushbench") == true, "\(path): \(lines.first ?? "")")
            let firstScreen = lines.prefix(24).joined(separator: "\n")
            for example in examples {
                XCTAssertTrue(lines.contains(example), "\(path): the example is cut: \(example)")
                XCTAssertLessThanOrEqual(example.count, 80, "\(path): \(example)")
            }
            if let first = examples.first {
                XCTAssertTrue(firstScreen.contains(first), "\(path): the examples come before the options")
            }
            XCTAssertEqual(help.stdout.components(separatedBy: "PUSHBENCH_<OPTION>").count - 1, 1, "\(path)")
            XCTAssertTrue(help.stdout.contains("docs/flags.md"), "\(path)")
            // One option's entry: its line and the lines the parser indents under it.
            var entries: [String] = []
            for line in lines {
                if line.hasPrefix("  -") {
                    entries.append(line)
                } else if line.hasPrefix("                          "), !entries.isEmpty {
                    entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
                }
            }
            for entry in entries {
                let defaults = entry.ranges(of: /\(default|; default:/).count
                XCTAssertLessThanOrEqual(defaults, 1, "\(path): a default said twice: \(entry)")
            }
        }
    }

    func testTheFlagsPageIsWrittenFromTheSameText() throws {
        let python = try XCTUnwrap(ExternalProgram.onPath("python3"))
        let script = Self.repository.appendingPathComponent("Scripts/flags-doc.py").path
        let written = try python.run([script, pushbench.path])
        XCTAssertEqual(written.status, 0, written.stderr)
        let committed = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/flags.md"),
            encoding: .utf8
        )
        XCTAssertTrue(written.stdout == committed, "docs/flags.md is stale: run `make flags-doc`")
        XCTAssertTrue(committed.contains("| `--threshold` `<expr>` |"), "every option is there")
    }
}
