import Foundation
import TestSupport
import XCTest

/// `pushbench tokens` as a user runs it: files, stdout, shards, and failures that lose nothing.
final class TokensCommandTests: PushbenchTestCase {
    private func contents(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    func testHexLinesOnStdoutAreDeterministicLowercaseTokens() throws {
        let first = try pushbench.run(["tokens", "-n", "1000", "--seed", "9"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let lines = first.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1000)
        XCTAssertTrue(lines.allSatisfy { $0.count == 64 && $0.allSatisfy { "0123456789abcdef".contains($0) } })
        XCTAssertEqual(Set(lines).count, 1000)
        XCTAssertEqual(try pushbench.run(["tokens", "-n", "1000", "--seed", "9"]).stdout, first.stdout)
        XCTAssertNotEqual(try pushbench.run(["tokens", "-n", "1000", "--seed", "10"]).stdout, first.stdout)
        XCTAssertEqual(first.stderr, "", "stdout runs print nothing else")
    }

    func testShardFilesConcatenateIntoTheWholeFile() throws {
        for format in ["hex", "binary"] {
            let whole = directory.file("whole.\(format)")
            let output = try pushbench.run(["tokens", "-n", "10001", "--format", format, "-o", whole])
            XCTAssertEqual(output.status, 0, output.stderr)
            XCTAssertTrue(output.stderr.contains("wrote 10001 device tokens"), output.stderr)
            var joined = Data()
            for shard in 0..<3 {
                let part = directory.file("part-\(shard).\(format)")
                let run = try pushbench.run([
                    "tokens", "-n", "10001", "--format", format, "--shard", "\(shard)/3", "-o", part,
                ])
                XCTAssertEqual(run.status, 0, run.stderr)
                joined.append(try contents(part))
            }
            XCTAssertEqual(joined, try contents(whole), format)
            XCTAssertEqual(try contents(whole).count, 10001 * (format == "hex" ? 65 : 32))
        }
    }

    func testChannelIDsAndTokenLength() throws {
        let channels = try pushbench.run(["tokens", "-n", "5", "--kind", "channel", "--format", "base64"])
        XCTAssertEqual(channels.status, 0, channels.stderr)
        for line in channels.stdout.split(separator: "\n") {
            XCTAssertEqual(Data(base64Encoded: String(line))?.count, 16, String(line))
        }
        let long = try pushbench.run(["tokens", "-n", "2", "--bytes", "100"])
        XCTAssertEqual(long.stdout.split(separator: "\n").map(\.count), [200, 200])
    }

    func testBadInputAndAFullDiskFailCleanly() throws {
        assertCleanFailure(
            try pushbench.run(["tokens", "-n", "10", "--shard", "3/3"]),
            mentions: "shard index must be 0 to 2"
        )
        assertCleanFailure(try pushbench.run(["tokens", "--format", "csv"]), mentions: "format")
        assertCleanFailure(
            try pushbench.run(["tokens", "-n", "10", "-o", directory.path + "/missing/dir/tokens.txt"]),
            mentions: "cannot write"
        )
        let full = try pushbench.run(["tokens", "-n", "100000", "-o", "/dev/full"])
        assertCleanFailure(full, mentions: "No space left on device")
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/dev/full"), "a device is never removed")
    }
}
