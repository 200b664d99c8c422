import Basics
import Foundation
import LoadEngine
import Transport
import Wire
import Workload
import XCTest

/// The engine's phases against a scripted transport, without sockets: the drain, retries,
/// tokens answered 410, the warmup, late answers, and provider tokens.
final class WorkerLoopTests: XCTestCase {
    private let tokens = ProviderTokenCache(key: try! ES256PrivateKey(), keyID: "ABC123DEFG", teamID: "DEF123GHIJ")

    private func configuration(
        requests: Int? = nil,
        activities: Int = 20,
        timeoutMs: Int = 10_000,
        duration: Double? = nil,
        warmup: Double = 0,
        pacing: Pacing = .closedLoop,
        retries: RetryPolicy = .none,
        backoff: ReconnectBackoff = .standard,
        tokenPolicy: ProviderTokenPolicy = .cached
    ) throws -> LoadConfiguration {
        LoadConfiguration(
            transport: TransportConfiguration(
                origin: "https://scripted.invalid",
                connections: 1,
                streamsPerConnection: 8,
                requestTimeout: .milliseconds(timeoutMs)
            ),
            scenario: try Scenario.builtIn(named: "football").scaled(toActivities: activities),
            requests: requests,
            duration: duration.map { .seconds($0) },
            warmup: .seconds(warmup),
            pacing: pacing,
            tokenPolicy: tokenPolicy,
            retryPolicy: retries,
            reconnectBackoff: backoff
        )
    }

    private func run(
        _ configuration: LoadConfiguration,
        slots: Int = 8,
        script: @escaping @Sendable (ScriptedTransport.Request) -> ScriptedTransport.Answer
    ) throws -> (RunResult, [ScriptedTransport.Request]) {
        let transport = ScriptedTransport(slots: slots, script: script)
        let result = try LoadTest.run(configuration, tokens: tokens, makeTransport: { _ in transport })
        return (result, transport.submitted.withLock { $0 })
    }

    func testPushesHeldIsWhatARunSendsWhenTheScenarioRunsOutBeforeTheCap() throws {
        for threads in [1, 2] {
            var short = try configuration(requests: 5_000, activities: 20)
            short.threads = threads
            short.transport.connections = threads
            let held = try XCTUnwrap(short.pushesHeld())
            XCTAssertLessThan(held, 5_000, "20 activities hold about 107 pushes each")
            let result = try LoadTest.run(
                short,
                tokens: tokens,
                makeTransport: { _ in ScriptedTransport(slots: 8) { _ in .status(200) } }
            )
            XCTAssertEqual(result.counts.sent, held, "\(threads) worker(s)")
            var long = try configuration(requests: 500, activities: 20)
            long.threads = threads
            long.transport.connections = threads
            XCTAssertEqual(try long.pushesHeld(), 500, "the cap, when the scenario holds more")
        }
        XCTAssertNil(try configuration(activities: 20).pushesHeld(), "no cap, nothing to check")
    }

    func testEveryAnsweredPushIsCountedOnceAndTheBooksBalance() throws {
        let (result, requests) = try run(configuration(requests: 500)) {
            $0.visit % 7 == 3 ? .status(400, reason: "BadDeviceToken") : .status(200)
        }
        XCTAssertEqual(result.counts.sent, 500)
        XCTAssertEqual(requests.count, 500)
        XCTAssertEqual(result.counts.succeeded + result.counts.rejected, 500)
        XCTAssertEqual(result.rejectedByReason.keys.sorted(), ["BadDeviceToken"])
        XCTAssertTrue(result.counts.isBalanced)
    }

    /// 64 streams make batches of 8. 56 of the first fill are answered half a second later, the
    /// other 8 at once, and so is every later push, but one answer a poll: the freed streams wait
    /// until 8 are free and go out together. (The hold is a minute here, so the batches form
    /// whatever the machine's speed; it is 100 µs in a run.)
    func testAClosedLoopRefillsItsStreamsABatchAtATime() throws {
        var configuration = try configuration(requests: 136)
        configuration.submitBatchHold = .seconds(60)
        let transport = ScriptedTransport(slots: 64, answersPerPerform: 1) {
            $0.index < 56 ? .status(200, delay: 0.5) : .status(200)
        }
        let result = try LoadTest.run(configuration, tokens: tokens, makeTransport: { _ in transport })
        let requests = transport.submitted.withLock { $0 }
        XCTAssertEqual(result.counts.succeeded, 136)
        XCTAssertTrue(result.counts.isBalanced)
        let rounds = Dictionary(grouping: requests.dropFirst(64), by: \.round).values.map(\.count)
        XCTAssertEqual(rounds.sorted(), Array(repeating: 8, count: 9), "nine refills of 8, not 72 of 1")
    }

    func testAnOpenLoopIsNeverHeldForABatch() throws {
        var configuration = try configuration(requests: 40, pacing: .constantRate(perSecond: 2_000))
        configuration.submitBatchHold = .seconds(60)
        let transport = ScriptedTransport(slots: 64, answersPerPerform: 1) { _ in .status(200) }
        let started = monotonicNanos()
        let result = try LoadTest.run(configuration, tokens: tokens, makeTransport: { _ in transport })
        XCTAssertEqual(result.counts.succeeded, 40)
        XCTAssertLessThan(Double(monotonicNanos() - started) / 1e9, 10, "a held open loop would wait a minute")
    }

    func testTheDrainAfterTheDurationIsBoundedAndCountsWhatIsStillOpenAsTimedOut() throws {
        let started = monotonicNanos()
        let (result, requests) = try run(configuration(duration: 0.2)) { _ in .never }
        let seconds = Double(monotonicNanos() - started) / 1e9
        XCTAssertEqual(requests.count, 8, "every slot filled once, none answered")
        XCTAssertEqual(result.counts.sent, 8)
        XCTAssertEqual(result.counts.timedOut, 8, "abandoned at the drain's end")
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertGreaterThanOrEqual(seconds, 2.2, "the drain waits its 2 s")
        XCTAssertLessThan(seconds, 3.5, "and no longer")
    }

    func testAnAnswerLaterThanTheTimeoutIsATimeoutNotASuccess() throws {
        let (result, _) = try run(configuration(requests: 40, timeoutMs: 10)) {
            $0.visit.isMultiple(of: 2) ? .status(200, delay: 0.03) : .status(200)
        }
        XCTAssertEqual(result.counts.sent, 40)
        XCTAssertGreaterThan(result.counts.timedOut, 0)
        XCTAssertEqual(result.counts.succeeded + result.counts.timedOut, 40)
        XCTAssertLessThanOrEqual(
            result.latency.max,
            10_000 + 10,
            "no success is slower than --timeout (µs, 3 digits)"
        )
    }

    func testRetriesSendAFailedPushAgainAndCountWhatRecovered() throws {
        let policy = RetryPolicy(maxRetries: 2, base: .milliseconds(1), cap: .milliseconds(10))
        let (result, requests) = try run(configuration(requests: 50, retries: policy)) { request in
            request.visit == 0 ? .status(503, reason: "ServiceUnavailable") : .status(200)
        }
        let firstAttempts = Set(requests.map(\.path)).count
        XCTAssertEqual(result.retries.recovered, firstAttempts, "every push's second attempt succeeded")
        XCTAssertEqual(result.retries.attempts.sent, result.counts.sent - 50)
        XCTAssertEqual(result.retries.exhausted, 0)
        XCTAssertTrue(result.counts.isBalanced)
    }

    func testRetriesStopWhenTheyRunOut() throws {
        let policy = RetryPolicy(maxRetries: 2, base: .milliseconds(1), cap: .milliseconds(10))
        // A request-level failure: the connection is fine, so no reconnect backoff holds them.
        let (result, _) = try run(configuration(requests: 10, retries: policy)) { _ in .fail(.streamReset) }
        XCTAssertEqual(result.counts.sent, 30, "10 pushes, each tried three times")
        XCTAssertEqual(result.counts.errored, 30)
        XCTAssertEqual(result.erroredByKind, ["stream_reset": 30])
        XCTAssertEqual(result.retries.exhausted, 10)
    }

    func testATokenAnswered410GetsNoMorePushes() throws {
        // Each activity's update token is answered 410 at its second push: it must get no third
        // (one push in flight at a time, so none was already on its way).
        let (result, requests) = try run(configuration(activities: 4), slots: 1) { request in
            request.visit == 1 ? .status(410, reason: "Unregistered") : .status(200)
        }
        let visits = Dictionary(grouping: requests, by: \.path).mapValues(\.count)
        XCTAssertEqual(visits.values.max(), 2, "\(visits)")
        XCTAssertGreaterThan(result.skippedForGoneTokens, 100, "the rest of each match was not sent")
        XCTAssertEqual(result.rejectedByReason, ["Unregistered": 4])
        XCTAssertTrue(result.counts.isBalanced)
    }

    func testTheWarmupIsSentButCountedApart() throws {
        let (result, requests) = try run(
            configuration(activities: 2000, duration: 0.3, warmup: 0.2, pacing: .constantRate(perSecond: 500))
        ) { _ in .status(200) }
        XCTAssertGreaterThan(result.warmupCounts.sent, 50)
        XCTAssertGreaterThan(result.counts.sent, 80)
        XCTAssertEqual(result.warmupCounts.sent + result.counts.sent, requests.count)
        XCTAssertEqual(result.warmupCounts.succeeded, result.warmupCounts.sent)
    }

    func testACachedProviderTokenIsSharedAndAPerRequestOneIsNot() throws {
        func bearers(_ policy: ProviderTokenPolicy) throws -> Set<String> {
            let (_, requests) = try run(configuration(requests: 20, tokenPolicy: policy)) { _ in .status(200) }
            return Set(requests.map { $0.headers.first { $0.hasPrefix("authorization: bearer ") } ?? "none" })
        }
        XCTAssertEqual(try bearers(.cached).count, 1)
        XCTAssertEqual(try bearers(.perRequest).count, 20)
    }

    func testAClosedLoopBacksOffFromARefusingTargetAndKeepsItsDuration() throws {
        let started = monotonicNanos()
        let (result, requests) = try run(configuration(duration: 1.5)) { _ in .fail(.connectRefused) }
        let seconds = Double(monotonicNanos() - started) / 1e9
        XCTAssertGreaterThanOrEqual(seconds, 1.5, "the run keeps its --duration")
        // 8 at the start, then one probe per hold: 0.05-0.1, 0.1-0.2, 0.2-0.4, 0.4-0.8 s ...
        XCTAssertLessThanOrEqual(requests.count, 8 + 6, "one probe per hold, not a storm")
        XCTAssertEqual(result.counts.errored, result.counts.sent)
        XCTAssertEqual(result.erroredByKind, ["connect_refused": result.counts.sent])
        XCTAssertFalse(result.gaveUpOnTarget, "a run with a duration keeps trying that long")
    }

    func testAnOpenLoopCountsPushesAsTheyFallDueWhileItBacksOff() throws {
        let (result, requests) = try run(
            configuration(activities: 2000, duration: 1, pacing: .constantRate(perSecond: 400))
        ) { _ in .fail(.tlsHandshake) }
        XCTAssertEqual(Double(result.counts.sent), 400, accuracy: 40, "the schedule is kept")
        XCTAssertLessThan(requests.count, 20, "but few pushes reach the transport")
        XCTAssertEqual(result.erroredByKind, ["tls_handshake": result.counts.sent])
        XCTAssertTrue(result.counts.isBalanced)
    }

    func testAnAnswerEndsTheBackoffAndAFailureAfterAnswersReconnectsAtOnce() throws {
        // Every fifth push fails as a lost connection after the others were answered: no hold.
        let (result, requests) = try run(configuration(requests: 300), slots: 1) { request in
            request.index % 5 == 4 ? .fail(.connectionLost) : .status(200)
        }
        XCTAssertEqual(requests.count, 300, "nothing was held back")
        XCTAssertEqual(result.counts.errored, 60)
        XCTAssertEqual(result.counts.succeeded, 240)
    }

    func testAClosedLoopWithoutADurationGivesUpOnATargetThatIsGone() throws {
        let (result, requests) = try run(
            configuration(requests: 1000, backoff: ReconnectBackoff(base: .milliseconds(10), cap: .milliseconds(80)))
        ) { _ in .fail(.connectRefused) }
        XCTAssertTrue(result.gaveUpOnTarget)
        XCTAssertLessThan(requests.count, 30)
        XCTAssertEqual(result.counts.sent, requests.count, "the rest was not sent, so not counted")
        XCTAssertTrue(result.counts.isBalanced)
    }

    func testAHoldTakesBackWhatIsStillInFlightSoNoClientRetriesThroughIt() throws {
        // The first request fails to connect; the other seven would never be answered.
        let transport = ScriptedTransport(slots: 8) { $0.index == 0 ? .fail(.connectRefused) : .never }
        let result = try LoadTest.run(
            configuration(duration: 0.3),
            tokens: tokens,
            makeTransport: { _ in transport }
        )
        XCTAssertEqual(transport.abandonedCount, 7)
        XCTAssertEqual(result.erroredByKind, ["connect_refused": 8], "the failure and the seven taken back at once")
        // After the hold, one probe went alone; unanswered, it timed out at the drain's end.
        XCTAssertEqual(result.counts.sent, 9)
        XCTAssertEqual(result.counts.timedOut, 1)
    }

    func testTheCachedProviderTokenIsRefreshedWhenItGrowsOld() throws {
        // An hour passes every second, so the 50-minute refresh comes at the worker's first
        // check, a second in.
        let start = monotonicNanos()
        var load = try configuration(activities: 2000, duration: 1.5)
        load.wallClock = WallClock { 1_800_000_000 + Double(monotonicNanos() - start) / 1e9 * 3600 }
        let transport = ScriptedTransport(slots: 8) { _ in .status(200, delay: 0.002) }
        _ = try LoadTest.run(load, tokens: tokens, makeTransport: { _ in transport })
        let bearers = transport.submitted.withLock { requests in
            requests.map { $0.headers.first { $0.hasPrefix("authorization: bearer ") } ?? "none" }
        }
        XCTAssertEqual(Set(bearers).count, 2, "one token, then its replacement")
        let switched = try XCTUnwrap(bearers.firstIndex { $0 != bearers[0] })
        XCTAssertTrue(bearers[switched...].allSatisfy { $0 == bearers[switched] }, "and never back")
    }
}
