import Foundation
import TestSupport
import XCTest

@testable import pushbench

/// The examples of the README and of the pages under `docs/` as a user copies them: every
/// `pushbench` command in their `sh` blocks parses and passes validation as written, so a
/// renamed or removed flag fails here instead of on a reader's machine; and the ones that finish
/// in seconds offline run to exit 0.
final class ReadmeExamplesTests: PushbenchTestCase {
    /// Each `pushbench …` command of the README's and the `docs/` pages' `sh` blocks,
    /// continuation lines joined, as arguments: without the program name, a trailing comment, a
    /// redirection or `&`, and with the shell loop's `$i` as 0.
    private func examples() throws -> [(line: String, arguments: [String])] {
        let docs = Self.repository.appendingPathComponent("docs")
        let pages =
            [Self.repository.appendingPathComponent("README.md")]
            + (try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil))
            .filter { $0.pathExtension == "md" }.sorted { $0.path < $1.path }
        var commands: [(String, [String])] = []
        for block in try pages.flatMap({
            try String(contentsOf: $0, encoding: .utf8).components(separatedBy: "```sh\n").dropFirst()
        }) {
            let code = block.components(separatedBy: "```").first ?? ""
            let joined = code.replacingOccurrences(of: "\\\n", with: " ")
            for line in joined.split(separator: "\n") {
                guard let arguments = Self.arguments(of: line) else { continue }
                commands.append((String(line), arguments))
            }
        }
        return commands
    }

    /// The arguments of a `pushbench …` command line, without the program name, a trailing
    /// comment, a redirection or `&`, with the shell loop's `$i` as 0 and a word's single quotes
    /// taken off; nil for another line.
    private static func arguments(of line: Substring) -> [String]? {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard words.first == "pushbench" else { return nil }
        return words.dropFirst().prefix { !["#", ">", "&", "|"].contains($0) }
            .map { $0.replacingOccurrences(of: "$i", with: "0") }
            .map { $0.count > 1 && $0.hasPrefix("'") && $0.hasSuffix("'") ? String($0.dropFirst().dropLast()) : $0 }
    }

    func testEveryExampleParsesAsWritten() throws {
        let examples = try examples()
        XCTAssertGreaterThanOrEqual(examples.count, 40, "the README's and docs' examples were not found")
        for example in examples {
            XCTAssertNoThrow(try PushBench.parseAsRoot(example.arguments), example.line)
        }
    }

    /// The examples in every command's `--help` parse as written too: help is where a reader
    /// copies from first.
    func testEveryHelpExampleParsesAsWritten() throws {
        let lines = PushBench.configuration.subcommands.flatMap {
            $0.configuration.discussion.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
        }
        let examples = lines.compactMap { line in
            Self.arguments(of: Substring(line.trimmingCharacters(in: .whitespaces))).map { (line, $0) }
        }
        XCTAssertGreaterThanOrEqual(examples.count, 20, "the help's examples were not found")
        for (line, arguments) in examples {
            XCTAssertNoThrow(try PushBench.parseAsRoot(arguments), String(line))
        }
    }

    func testTheOfflineExamplesRunAsWritten() throws {
        let quick: Set<String> = [
            "tokens -n 1000 --kind channel --format base64", "scenarios", "scenarios show football",
            "budget --scenario delivery --preset conservative --per-hour 6 --key-lag-target 30s",
        ]
        // The README repeats some of a page's examples: each runs once.
        var seen = Set<String>()
        let chosen = try examples().filter {
            let command = $0.arguments.joined(separator: " ")
            return quick.contains(command) && seen.insert(command).inserted
        }
        XCTAssertEqual(seen, quick, "\(chosen.map(\.line))")
        for example in chosen {
            let output = try pushbench.run(example.arguments + reportsFolder(example.arguments), timeout: 120)
            XCTAssertEqual(output.status, 0, "\(example.line): \(output.stderr)")
            XCTAssertFalse(output.stdout.isEmpty, example.line)
        }
    }

    /// Keeps a budget example's report out of the checkout.
    private func reportsFolder(_ arguments: [String]) -> [String] {
        arguments.first == "budget" ? ["--reports-dir", directory.file("reports")] : []
    }
}
