import Wire
import XCTest

@testable import MockFaults

/// Incidents on the mock's timeline, per-token throttling and per-type latency, decided for
/// pushes at chosen moments.
final class FaultTimelineTests: XCTestCase {
    private let start: UInt64 = 1_000_000_000_000
    private func at(_ seconds: Double) -> UInt64 { start + UInt64(seconds * 1e9) }

    /// A push as the injector is given one: its push type and path.
    private struct Push {
        var type: PushType?
        var path: String
    }

    private func push(token: String = String(repeating: "ab", count: 32), type: PushType = .liveactivity) -> Push {
        Push(type: type, path: "/3/device/" + token)
    }

    func testIncidentsActOnlyInsideTheirSpan() {
        let injector = FaultInjector(
            plan: FaultPlan(incidents: [
                Incident(.errors(.serviceUnavailable, share: 1), atSeconds: 10, forSeconds: 5),
                Incident(.stall, atSeconds: 20, forSeconds: 2),
                Incident(.hang, atSeconds: 30, forSeconds: 1),
                Incident(.stall, atSeconds: 40),
            ]),
            startNanos: start
        )
        XCTAssertNil(decide(injector, push(), nowNanos: at(9.9), valid: true).injected)
        XCTAssertEqual(decide(injector, push(), nowNanos: at(10), valid: true).injected, .serviceUnavailable)
        XCTAssertNil(decide(injector, push(), nowNanos: at(12), valid: false).injected, "a rejection keeps its reason")
        XCTAssertNil(decide(injector, push(), nowNanos: at(15), valid: true).injected)

        let stalled = decide(injector, push(), nowNanos: at(20.5), valid: true)
        XCTAssertTrue(stalled.stalled)
        XCTAssertEqual(stalled.delayNanos, 1_500_000_000, "held until the stall ends")
        XCTAssertEqual(decide(injector, push(), nowNanos: at(22), valid: true).delayNanos, 0)

        XCTAssertTrue(decide(injector, push(), nowNanos: at(30.5), valid: true).withheld)
        XCTAssertFalse(decide(injector, push(), nowNanos: at(31), valid: true).withheld)
        XCTAssertTrue(decide(injector, push(), nowNanos: at(500), valid: true).withheld, "a stall for good never ends")
    }

    func testAnErrorBurstHitsItsShareReproducibly() {
        func burst() -> Int {
            let injector = FaultInjector(
                plan: FaultPlan(
                    incidents: [Incident(.errors(.internalServerError, share: 0.3), atSeconds: 0)],
                    seed: 3
                ),
                startNanos: start
            )
            return (0..<2000).filter { _ in decide(injector, push(), nowNanos: at(1), valid: true).injected != nil }
                .count
        }
        let hits = burst()
        XCTAssertEqual(hits, burst(), "the same seed, the same pushes")
        XCTAssert((500...700).contains(hits), "\(hits) of 2000 at a 30% share")
    }

    func testATokenIsThrottledPastItsLimitWithinAWindow() {
        let injector = FaultInjector(
            plan: FaultPlan(tokenRateLimit: .init(pushes: 2, windowSeconds: 60)),
            startNanos: start
        )
        let answers = [1.0, 2, 3, 4].map { decide(injector, push(), nowNanos: at($0), valid: true).injected }
        XCTAssertEqual(answers, [nil, nil, .tooManyRequests, .tooManyRequests])
        XCTAssertNil(
            decide(injector, push(token: String(repeating: "cd", count: 32)), nowNanos: at(5), valid: true).injected
        )
        XCTAssertNil(decide(injector, push(), nowNanos: at(61), valid: true).injected, "a new window starts afresh")
    }

    func testSlowTLSAcceptHoldsHandshakesInItsSpan() {
        let injector = FaultInjector(
            plan: FaultPlan(incidents: [Incident(.slowTLSAccept(delaySeconds: 2), atSeconds: 5, forSeconds: 10)]),
            startNanos: start
        )
        XCTAssertEqual(injector.handshakeDelayNanos(nowNanos: at(4)), 0)
        XCTAssertEqual(injector.handshakeDelayNanos(nowNanos: at(5)), 2_000_000_000)
        XCTAssertEqual(injector.handshakeDelayNanos(nowNanos: at(15)), 0)
    }

    func testLatencyFollowsThePushTypeAndAnEmpiricalTable() throws {
        let table = try InjectedLatency(parsing: "empirical:50=10ms,90=20ms,100=100ms")
        let injector = FaultInjector(
            plan: FaultPlan(latency: .fixed(micros: 1000), latencyByPushType: [.liveactivity: table]),
            startNanos: start
        )
        XCTAssertEqual(decide(injector, push(type: .alert), nowNanos: at(1), valid: true).delayNanos, 1_000_000)
        let draws = (0..<10_000).map { _ in
            Double(decide(injector, push(), nowNanos: at(1), valid: true).delayNanos) / 1000
        }.sorted()
        XCTAssertEqual(draws[5000], 10_000, accuracy: 300, "p50")
        XCTAssertEqual(draws[9000], 20_000, accuracy: 600, "p90")
        XCTAssertEqual(draws[9500], 60_000, accuracy: 3000, "p95, halfway from p90 (20 ms) to p100 (100 ms)")
        XCTAssertLessThanOrEqual(draws.last ?? 0, 100_000)
        XCTAssertThrowsError(try InjectedLatency(parsing: "empirical:50=10ms,90=5ms,100=20ms"), "latencies fall")
        XCTAssertThrowsError(try InjectedLatency(parsing: "empirical:50=10ms,90=20ms"), "does not reach 100")
    }

    private func decide(
        _ injector: FaultInjector,
        _ push: Push,
        nowNanos: UInt64,
        valid: Bool
    ) -> FaultInjector.Decision {
        injector.decide(pushType: push.type, path: push.path, nowNanos: nowNanos, valid: valid)
    }
}
