import Foundation
import MockFaults
import TestSupport
import Wire
import XCTest

final class FaultPlanFileTests: XCTestCase {
    /// The example the README and `mock --help` point to.
    private static let storm = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Benchmarks/faults/storm.json").path

    func testTheShippedStormReadsAsWritten() throws {
        let plan = try FaultPlan.load(Self.storm)
        XCTAssertEqual(plan.name, "storm")
        XCTAssertEqual(plan.seed, 7)
        XCTAssertEqual(plan.latency, .lognormal(medianMicros: 20_000, sigma: 0.5))
        XCTAssertEqual(
            plan.latencyByPushType[.liveactivity],
            .empirical([
                .init(50, micros: 8000), .init(90, micros: 15_000), .init(99, micros: 40_000),
                .init(100, micros: 120_000),
            ])
        )
        XCTAssertEqual(plan.errorRates, [.serviceUnavailable: 0.001])
        XCTAssertEqual(plan.tokenRateLimit, .init(pushes: 20, windowSeconds: 60))
        XCTAssertEqual(
            plan.incidents,
            [
                Incident(.errors(.serviceUnavailable, share: 0.5), atSeconds: 10, forSeconds: 5),
                Incident(.stall, atSeconds: 20, forSeconds: 2),
                Incident(.hang, atSeconds: 30, forSeconds: 1),
                Incident(.goAway, atSeconds: 40),
                Incident(.reset, atSeconds: 50),
                Incident(.slowTLSAccept(delaySeconds: 2), atSeconds: 50, forSeconds: 10),
            ]
        )
    }

    func testEveryMistakeNamesTheFileAndThePlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cases: [(json: String, message: String)] = [
            ("[]", "expected a JSON object of faults"),
            (#"{"latncy": "fixed:1ms"}"#, "unknown field 'latncy' in the faults"),
            (#"{"latency": "fixed:1"}"#, "'1' is not a duration"),
            (#"{"latency_by_push_type": {"live": "fixed:1ms"}}"#, "'live' is not a push type"),
            (#"{"error_rates": {"BadTopic": 0.1}}"#, "REASON one of TooManyRequests"),
            (#"{"token_rate_limit": {"pushes": 0, "window": "60s"}}"#, "token_rate_limit.pushes must be at least 1"),
            (#"{"incidents": [{"kind": "flood", "at": "1s"}]}"#, "incident 1: kind must be errors, stall, hang"),
            (#"{"incidents": [{"kind": "stall"}]}"#, "incident 1: needs at, such as 10s"),
            (#"{"incidents": [{"kind": "errors", "at": "1s", "reason": "BadTopic"}]}"#, "errors needs a reason"),
            (#"{"incidents": [{"kind": "hang", "at": "1s", "for": "2"}]}"#, "'2' is not a duration"),
            (#"{"incidents": [{"kind": "slow_tls_accept", "at": "1s"}]}"#, "slow_tls_accept needs a delay"),
            (#"{"incidents": [{"kind": "hang", "at": "1s", "when": "now"}]}"#, "unknown field 'when' in the incident"),
            (#"{"goaway_after": "10"}"#, "goaway_after has the wrong type"),
        ]
        for (json, message) in cases {
            let path = try directory.write("faults.json", Array(json.utf8))
            XCTAssertThrowsError(try FaultPlan.load(path), json) { error in
                XCTAssertTrue("\(error)".hasPrefix(path + ": "), "\(error)")
                XCTAssertTrue("\(error)".contains(message), "\(json): \(error)")
            }
        }
    }
}
