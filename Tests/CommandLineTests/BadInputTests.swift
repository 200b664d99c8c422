import Foundation
import TestSupport
import XCTest

/// Every bad input a user has hit, as a table: each ends before any work in one line that names
/// the flag, the value and what is wrong, with the exit status of the README's table, and no
/// Foundation error text or crash report.
final class BadInputTests: PushbenchTestCase {
    private struct Case {
        let arguments: [String]
        let status: Int32
        let message: String
    }

    func testEachBadInputIsOneLineWithItsExitStatus() throws {
        let binary = try directory.write("binary.yaml", (0..<200).map { UInt8(($0 * 37) % 256) })
        let folder = directory.file("a-folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let plainFile = try directory.write("a-file", Array("x\n".utf8))
        let badProfile = try directory.write("profile.csv", Array("seconds,rate\n0,100\n30,abc\n".utf8))
        let binaryProfile = try directory.write("binary.csv", Array("0,100\n\u{1}\u{2},5\n".utf8))
        let broadcast = try directory.write(
            "broadcast.yaml",
            Array("name: final\ncohorts:\n  - kind: football\n    activities: 10\n    delivery: broadcast\n".utf8)
        )
        let cases = [
            Case(
                arguments: ["run", "--activities", "1000000000"],
                status: 2,
                message: "--activities 1000000000: the budget model of the accepted pushes needs about"
            ),
            Case(
                arguments: ["budget", "--activities", "99999999999"],
                status: 2,
                message: "--activities 99999999999: the budget model needs about"
            ),
            Case(
                arguments: ["run", "--reports-dir", plainFile + "/sub", "--requests", "10"],
                status: 2,
                message: "--reports-dir \(plainFile)/sub: \(plainFile) is a file, not a folder"
            ),
            Case(
                arguments: ["hotpath", "--json", folder],
                status: 2,
                message: "--json \(folder) is a folder, not a file"
            ),
            Case(
                arguments: ["run", "--scenario", binary],
                status: 2,
                message: "scenario \(binary) is not a text file (byte 0 is 0x00)"
            ),
            Case(arguments: ["run", "--scenario", folder], status: 2, message: "scenario \(folder) is a folder"),
            Case(
                arguments: ["run", "--scenario", broadcast, "--endpoint", "https://127.0.0.1:9"],
                status: 2,
                message: "final broadcasts: give the channel management API with --channel-endpoint"
            ),
            Case(
                arguments: [
                    "run", "--scenario", broadcast, "--endpoint", "https://127.0.0.1:9", "--channel-endpoint",
                    "https://127.0.0.1:9/1/apps",
                ],
                status: 2,
                message: "--channel-endpoint must be https://host[:port], not 'https://127.0.0.1:9/1/apps'"
            ),
            Case(
                arguments: ["mock", "--report", plainFile + "/sub"],
                status: 2,
                message: "--report \(plainFile)/sub: \(plainFile) is a file, not a folder"
            ),
            Case(
                arguments: ["run", "--rate-profile", "./missing.csv"],
                status: 2,
                message: "--rate-profile ./missing.csv: no such file"
            ),
            Case(
                arguments: ["run", "--rate-profile", badProfile],
                status: 2,
                message: "--rate-profile \(badProfile):3: '30,abc' is not a SECONDS,RATE line"
            ),
            Case(
                arguments: ["run", "--rate-profile", binaryProfile],
                status: 2,
                message: "--rate-profile \(binaryProfile) is not a text file (byte 6 is 0x01)"
            ),
            Case(arguments: ["run", "--connections", "0"], status: 64, message: "--connections 0: must be at least 1"),
            Case(arguments: ["run", "--streams", "0"], status: 64, message: "--streams 0: must be at least 1"),
            Case(arguments: ["help", "nosuch"], status: 64, message: "no command 'nosuch'; the commands are run"),
            Case(arguments: ["run", "--duration", "0"], status: 64, message: "--duration 0: must be longer than 0"),
            Case(arguments: ["run", "--duration", "ten"], status: 64, message: "--duration"),
            Case(
                arguments: ["run", "--auth-key", folder, "--key-id", "ABC1234567", "--team-id", "TEAM123456"],
                status: 2,
                message: "signing key \(folder) is a folder, not a file"
            ),
        ]
        for test in cases {
            let output = try pushbench.run(test.arguments, timeout: 60)
            XCTAssertEqual(output.status, test.status, "\(test.arguments): \(output.stderr)")
            assertCleanFailure(output, mentions: test.message)
            XCTAssertFalse(output.stderr.contains("NSCocoaErrorDomain"), "\(test.arguments): \(output.stderr)")
            XCTAssertFalse(output.stderr.contains("The file isn"), "\(test.arguments): \(output.stderr)")
            XCTAssertFalse(output.stderr.contains("mock APNs on"), "\(test.arguments) started work: \(output.stderr)")
        }
    }

    /// Durations take units everywhere; a bare number other than 0 is refused with the fix, on
    /// every command, and the old spellings are gone.
    func testDurationsTakeUnitsAndABareNumberIsRefusedWithTheFix() throws {
        let reports = directory.file("runs")
        let run = try pushbench.run(
            [
                "run", "--requests", "20", "--no-budget", "--reports-dir", reports, "--timeout", "2.5s", "--duration",
                "1m", "--connect-timeout", "750ms", "--warmup", "0",
            ]
        )
        XCTAssertEqual(run.status, 0, run.stderr)
        let folder = reports + "/" + (try FileManager.default.contentsOfDirectory(atPath: reports).first!)
        let summary = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: folder + "/summary.json"))
        )
        let parameters = try XCTUnwrap((summary as? [String: Any])?["parameters"] as? [String: Any])
        XCTAssertEqual(parameters["request_timeout_ms"] as? Int, 2500)
        XCTAssertEqual(parameters["duration_cap_s"] as? Double, 60)
        XCTAssertEqual(parameters["connect_timeout_ms"] as? Int, 750)

        let bare: [(arguments: [String], message: String)] = [
            (["run", "--timeout", "3"], "--timeout 3: a duration needs a unit, such as 3ms or 3s"),
            (["plan", folder, "--p99", "250"], "--p99 250: a duration needs a unit, such as 250ms or 250s"),
            (["mock", "--handshake-timeout", "2"], "--handshake-timeout 2: a duration needs a unit"),
            (["budget", "--key-lag-target", "15"], "--key-lag-target 15: a duration needs a unit"),
            (["merge", folder, "--max-start-skew", "1"], "--max-start-skew 1: a duration needs a unit"),
            (["hotpath", "--seconds", "1"], "--seconds 1: a duration needs a unit"),
            (["run", "--duration", "ten"], "--duration ten: not a duration such as 500us, 250ms, 30s, 5m or 1h"),
        ]
        for (arguments, message) in bare {
            let output = try pushbench.run(arguments)
            XCTAssertEqual(output.status, 64, "\(arguments): \(output.stderr)")
            assertCleanFailure(output, mentions: message)
        }
        for old in [
            ["run", "--timeout-ms", "1500"], ["run", "--retry-backoff-ms", "100"], ["run", "--key", "AuthKey.p8"],
            ["mock", "--cert", "c.pem"], ["mock", "--key", "k.pem"], ["budget", "--burst", "5"],
        ] {
            let output = try pushbench.run(old)
            XCTAssertEqual(output.status, 64, "\(old): \(output.stderr)")
            assertCleanFailure(output, mentions: "Unknown option '\(old[1])'")
        }
    }

    func testMergingTwoWholeRunsSaysTheyAreNotShards() throws {
        var summaries: [String] = []
        for index in 0..<2 {
            let reports = directory.file("runs\(index)")
            let run = try pushbench.run(["run", "--requests", "20", "--no-budget", "--reports-dir", reports])
            XCTAssertEqual(run.status, 0, run.stderr)
            summaries.append(reports + "/" + (try FileManager.default.contentsOfDirectory(atPath: reports).first!))
        }
        let merge = try pushbench.run(["merge"] + summaries + ["-o", directory.file("merged")])
        XCTAssertEqual(merge.status, 2)
        assertCleanFailure(merge, mentions: "these are 2 whole runs, not the shards of one")
    }

    /// Ctrl-C on a long `tokens` write leaves no truncated file behind, and says so.
    func testAnInterruptedTokensWriteRemovesItsPartialFile() throws {
        let output = directory.file("big.txt")
        let tokens = try RunningProgram(pushbench, ["tokens", "-n", "100000000", "-o", output], captureStderr: true)
        let deadline = Date().addingTimeInterval(30)
        while (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0) ?? 0 < 1_000_000
            && Date() < deadline
        {
            usleep(20_000)
        }
        tokens.interrupt()
        XCTAssertEqual(tokens.waitForExit(timeout: 30), 130, tokens.output)
        XCTAssertTrue(tokens.output.contains("the incomplete file \(output) was removed"), tokens.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }
}
