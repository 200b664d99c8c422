import Foundation
import MockAPNs
import XCTest

/// The fuzzer's seeds and every input it ever crashed on (`Fuzz/regressions/`), replayed through
/// the same `RequestFuzzer` the libFuzzer target drives, so a crash found once stays fixed.
final class FuzzRegressionTests: XCTestCase {
    private let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    private func inputs(in folder: String) throws -> [(name: String, bytes: [UInt8])] {
        let directory = fuzz.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            .filter { !$0.hasPrefix(".") }
            .map { ($0, Array(try Data(contentsOf: directory.appendingPathComponent($0)))) }
    }

    func testEveryRegressionAndSeedIsAnsweredWithoutACrash() throws {
        let fuzzer = try RequestFuzzer()
        for (name, bytes) in try inputs(in: "regressions") + inputs(in: "seeds") {
            XCTAssertGreaterThan(fuzzer.exercise(bytes), 0, name)
        }
    }

    /// The seeds reach past the token check to the checks behind it, or fuzzing them would only
    /// ever exercise the refusal of a bad token.
    func testTheSeedsReachTheirIntendedAnswers() throws {
        let fuzzer = try RequestFuzzer()
        let expected = [
            "liveactivity-update": 200, "liveactivity-start": 200, "liveactivity-end": 200, "alert-with-ids": 200,
            "token-rule-unregistered": 410, "forged-token": 403, "broadcast": 400, "channel-create": 201,
            "channel-read": 400, "channel-list": 200, "stats": 200,
        ]
        let seeds = try inputs(in: "seeds")
        XCTAssertEqual(Set(seeds.map(\.name)), Set(expected.keys))
        for (name, bytes) in seeds {
            XCTAssertEqual(fuzzer.exercise(bytes), expected[name], name)
        }
    }

    func testAnEmptyOrHeaderlessInputIsStillARequest() throws {
        let fuzzer = try RequestFuzzer()
        XCTAssertEqual(fuzzer.exercise([]), 0)
        XCTAssertEqual(fuzzer.exercise(Array("0".utf8)), 405, "no method: MethodNotAllowed")
        XCTAssertEqual(fuzzer.exercise(Array("0POST".utf8)), 404, "no path: BadPath")
    }
}
