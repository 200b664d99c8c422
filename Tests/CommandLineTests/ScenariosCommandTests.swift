import Foundation
import TestSupport
import XCTest

/// `pushbench scenarios` as a user runs it.
final class ScenariosCommandTests: PushbenchTestCase {
    func testListShowAndStreamABuiltIn() throws {
        let list = try pushbench.run(["scenarios"])
        XCTAssertEqual(list.status, 0, list.stderr)
        for name in ["football", "delivery", "rideshare", "upload", "flash-sale"] {
            XCTAssertTrue(list.stdout.contains("  \(name) "), list.stdout)
        }
        let show = try pushbench.run(["scenarios", "show", "football"])
        XCTAssertEqual(show.status, 0, show.stderr)
        let file = try directory.write(
            "final.yaml",
            Array(show.stdout.replacingOccurrences(of: "seed: 1", with: "seed: 3").utf8)
        )

        let stream = try pushbench.run(["scenarios", "stream", file, "--activities", "200", "--threads", "2"])
        XCTAssertEqual(stream.status, 0, stream.stderr)
        XCTAssertTrue(stream.stdout.contains("200 activities, seed 3"), stream.stdout)
        XCTAssertTrue(stream.stdout.contains("(start 200, update"), stream.stdout)
        XCTAssertTrue(stream.stdout.contains("end 200)"), stream.stdout)
        XCTAssertTrue(
            stream.stdout.contains("busiest simulated second: 400 pushes"),
            "the half-time whistle and the last minute reach all 200 in the same second: \(stream.stdout)"
        )
        XCTAssertTrue(stream.stdout.contains("M events/s"), stream.stdout)
    }

    func testABadFileOrNameIsAOneLineError() throws {
        let file = try directory.write(
            "bad.yaml",
            Array("name: x\ncohorts: [{kind: football, activities: 10, grups: 2}]\n".utf8)
        )
        assertCleanFailure(try pushbench.run(["scenarios", "stream", file]), mentions: "cohorts[0].grups: unknown key")
        assertCleanFailure(
            try pushbench.run(["scenarios", "show", "cricket"]),
            mentions: "no built-in scenario 'cricket'"
        )
    }
}
