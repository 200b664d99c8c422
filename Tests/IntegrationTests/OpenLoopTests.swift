import LoadEngine
import MockAPNs
import MockFaults
import XCTest

/// Open loop against a mock that freezes: latency from the intended send time shows the stall,
/// closed loop hides it (wrk2's demonstration of coordinated omission).
final class OpenLoopTests: XCTestCase {
    func testAStalledTargetShowsInOpenLoopPercentilesAndHidesInClosedLoop() throws {
        // The mock answers nothing in the last 0.5 s of every 2 s: a quarter of the time.
        let faults = FaultPlan(latency: .fixed(micros: 1000), stall: (seconds: 0.5, everySeconds: 2))
        let mock = try MockFixture(faults: faults)
        var open = try mock.load(requests: 1800)
        open.pacing = try .constantRate(perSecond: 300)
        let openResult = try LoadTest.run(open, tokens: mock.tokens())
        XCTAssertEqual(openResult.mode, .openLoop)
        XCTAssertEqual(openResult.counts.succeeded, 1800)
        XCTAssertEqual(openResult.durationSeconds, 6, accuracy: 1, "1800 pushes at 300/s take about 6 s")
        // A quarter of the pushes are intended inside a stall and wait for its end, 0 to 0.5 s:
        // p95 ≈ 0.4 s, p99 ≈ 0.48 s.
        XCTAssertGreaterThan(openResult.latency.valueAtPercentile(95), 250_000)
        XCTAssertGreaterThan(openResult.latency.valueAtPercentile(99), 350_000)
        XCTAssertLessThan(openResult.scheduleLag.valueAtPercentile(50), 250_000, "the generator kept its schedule")

        // 2.5 s, so the closed loop meets the stall from 1.5 s to 2 s however fast this machine is.
        let closedMock = try MockFixture(faults: faults)
        var closedLoad = try closedMock.load(requests: nil, connections: 1, streams: 4)
        closedLoad.duration = .milliseconds(2500)
        let closed = try LoadTest.run(closedLoad, tokens: closedMock.tokens())
        XCTAssertEqual(closed.mode, .closedLoop)
        XCTAssertEqual(closed.counts.succeeded, closed.counts.sent)
        XCTAssertGreaterThan(closedMock.server.stats.snapshot().answersStalled, 0)
        // Only the few requests in flight when a stall begins wait; the rest are never sent then.
        // (Compared with the open loop's in the same test, so a busy machine moves both.)
        XCTAssertLessThan(closed.latency.valueAtPercentile(95), openResult.latency.valueAtPercentile(95) / 3)
    }
}
