import LoadEngine
import MockAPNs
import MockFaults
import Reports
import Workload
import XCTest

/// The engine sends whole scenarios from several workers, paced by the scenario's clock, drops
/// gone tokens, and stops on time: over real sockets to the mock.
final class ScenarioRunTests: XCTestCase {
    func testTwoWorkersSendTheWholeScenarioAndBothSidesAgree() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: nil, activities: 40)
        load.threads = 2
        let expected = try ScenarioStream(load.scenario).reduce(0) { count, _ in count + 1 }
        let accepted = AcceptedTally()
        let result = try LoadTest.run(load, tokens: mock.tokens(), onAccepted: { push in accepted.add(push) })

        XCTAssertEqual(result.counts.sent, expected)
        XCTAssertEqual(result.counts.succeeded, expected)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.timeline.map(\.counts.sent).reduce(0, +), expected)
        XCTAssertEqual(result.latency.totalCount, UInt64(expected))
        XCTAssertEqual(result.perConnection.count, 4, "two workers, two connections each")
        XCTAssertEqual(mock.server.stats.snapshot().pushes, expected)
        XCTAssertEqual(accepted.byWorker, [0: expected / 2, 1: expected / 2], "each worker owns half the activities")
        XCTAssertEqual(accepted.phases[.start], 40)
        XCTAssertEqual(accepted.phases[.end], 40)
        XCTAssertTrue(accepted.inOrder, "one worker's answers come in time order on the scenario's clock")
        for stage in [StageTimes.Stage.workload, .encoding, .submit, .transport, .responses] {
            XCTAssertGreaterThan(result.stageTimes.nanosPerPush(stage, pushes: expected), 0, "\(stage) was timed")
        }
        XCTAssertEqual(result.stageTimes.nanosPerPush(.signing, pushes: expected), 0, accuracy: 1000)
        XCTAssertGreaterThan(result.workerBusyShare, 0)
        XCTAssertLessThanOrEqual(result.workerBusyShare, 1.05)
    }

    func testTokensAnsweredGoneAreNotSentAgain() throws {
        let hygiene = try TokenHygiene(unregisteredFraction: 0.3)
        let mock = try MockFixture(tokenHygiene: hygiene)
        // One stream: each answer arrives before the next push leaves, so the count is exact.
        let load = try mock.load(requests: nil, activities: 20, connections: 1, streams: 1)
        let source = ScenarioPushSource(scenario: load.scenario)
        var gone: Set<String> = []
        var firstPushes = 0
        var later = 0
        var total = 0
        for event in try ScenarioStream(load.scenario) {
            total += 1
            let tokens = source.tokens(for: event)
            guard hygiene.fate(of: tokens, at: event.tokenIndex) == .unregistered else { continue }
            if gone.insert(tokens.hex(at: event.tokenIndex)).inserted { firstPushes += 1 } else { later += 1 }
        }
        XCTAssertGreaterThan(later, 100, "the scenario sends again to gone tokens")

        let result = try LoadTest.run(load, tokens: mock.tokens())
        XCTAssertEqual(result.rejectedByReason, ["Unregistered": firstPushes])
        XCTAssertEqual(result.skippedForGoneTokens, later)
        XCTAssertEqual(result.counts.sent, total - later)
        XCTAssertTrue(result.counts.isBalanced)
    }

    func testTheScenarioClockPacesAnOpenLoopRun() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: nil, activities: 5)
        let times = try ScenarioStream(load.scenario).map(\.timeMs)
        let spanMs = Double(times.last! - times.first!)
        load.pacing = .scenarioTime(scale: spanMs / 2000)
        let result = try LoadTest.run(load, tokens: mock.tokens())

        XCTAssertEqual(result.mode, .openLoop)
        XCTAssertEqual(result.counts.succeeded, times.count)
        XCTAssertGreaterThanOrEqual(result.durationSeconds, 1.95, "the last event is due 2 s after the first")
        XCTAssertLessThan(result.durationSeconds, 10)
        XCTAssertEqual(result.scheduleLag.totalCount, UInt64(times.count))
        XCTAssertLessThan(result.scheduleLag.valueAtPercentile(50), 200_000, "pushes left when the scenario said")
    }

    func testADurationEndsSubmissionAndAwaitsWhatIsInFlight() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: nil, activities: 100_000)
        load.duration = .milliseconds(1500)
        let result = try LoadTest.run(load, tokens: mock.tokens())

        XCTAssertFalse(result.interrupted)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.counts.succeeded, result.counts.sent, "nothing in flight was abandoned")
        XCTAssertGreaterThan(result.counts.sent, 100)
        XCTAssertLessThan(result.durationSeconds, 6)
    }
}

/// What the accepted-push callback saw, from several worker threads.
private final class AcceptedTally: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var byWorker: [Int: Int] = [:]
    private(set) var phases: [LifecyclePhase: Int] = [:]
    private(set) var inOrder = true
    private(set) var kinds: [EventKind: Int] = [:]
    private(set) var activities: Set<Int> = []
    private var lastMs: [Int: Int64] = [:]

    func add(_ push: AcceptedPush) {
        lock.lock()
        defer { lock.unlock() }
        byWorker[push.worker, default: 0] += 1
        phases[push.event.phase, default: 0] += 1
        kinds[push.event.kind, default: 0] += 1
        activities.insert(push.event.activity)
        if push.answeredAtSimulatedMs < lastMs[push.worker, default: .min] { inOrder = false }
        lastMs[push.worker] = push.answeredAtSimulatedMs
    }
}

/// Rate profiles drive real runs: the shape sets when pushes leave and when the run ends.
final class RateProfileRunTests: XCTestCase {
    func testARunFollowsARampAndEndsWhenTheProfileFallsToZero() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: nil, activities: 1000)
        // 100/s rising to 300/s over 2 s (400 pushes), then nothing.
        load.pacing = .rate(try RateProfile(parsing: "0:100,2s:300,2s:0"))
        load.threads = 2
        let result = try LoadTest.run(load, tokens: mock.tokens())

        XCTAssertEqual(result.counts.sent, 400, "the profile's integral")
        XCTAssertEqual(result.counts.succeeded, 400)
        XCTAssertEqual(result.durationSeconds, 2, accuracy: 0.5)
        XCTAssertEqual(result.mode, .openLoop)
        func sent(inSecond second: Double) -> Int {
            result.timeline.filter { $0.startSeconds >= second && $0.startSeconds < second + 1 }
                .map(\.counts.sent).reduce(0, +)
        }
        XCTAssertGreaterThan(sent(inSecond: 1), sent(inSecond: 0), "the second second is busier than the first")
    }
}

/// The warmup's pushes are sent and counted apart; every figure covers only what follows.
final class WarmupTests: XCTestCase {
    func testTheWarmupIsCountedApartAndTheServerStillAgrees() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: nil, activities: 1000)
        load.pacing = try .constantRate(perSecond: 400)
        load.warmup = .seconds(1)
        load.duration = .seconds(1)
        let result = try LoadTest.run(load, tokens: mock.tokens())

        XCTAssertEqual(Double(result.warmupCounts.sent), 400, accuracy: 2, "pushes meant for the first second")
        XCTAssertEqual(Double(result.counts.sent), 400, accuracy: 2, "pushes meant for the measured second")
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertTrue(result.warmupCounts.isBalanced)
        XCTAssertEqual(result.latency.totalCount, UInt64(result.counts.succeeded), "no warmup answer is timed")
        XCTAssertEqual(result.timeline.map(\.counts.sent).reduce(0, +), result.counts.sent)
        XCTAssertEqual(result.durationSeconds, 1, accuracy: 0.5, "measured from the end of the warmup")
        let stats = mock.server.stats.snapshot()
        let server = ServerCounts(
            pushes: stats.pushes,
            accepted: stats.accepted,
            rejectedByReason: stats.rejectedByReason,
            connections: stats.connectionsAccepted
        )
        XCTAssertEqual(ServerCheck(result: result, server: server).differences, [])
    }
}

/// Retries against a mock that fails some answers on purpose: every attempt is accounted for,
/// and each push ends delivered or given up.
final class RetryRunTests: XCTestCase {
    func testPushesThatFailAreSentAgainAndEveryAttemptIsAccountedFor() throws {
        let mock = try MockFixture(faults: FaultPlan(errorRates: [.serviceUnavailable: 0.3], seed: 11))
        var load = try mock.load(requests: 600, transport: .nghttp2)
        load.retryPolicy = RetryPolicy(maxRetries: 3, base: .milliseconds(10))
        let result = try LoadTest.run(load, tokens: mock.tokens())

        let retries = result.retries
        XCTAssertGreaterThan(retries.attempts.sent, 150, "about 30% of attempts fail and go again")
        XCTAssertEqual(result.counts.sent, 600 + retries.attempts.sent, "each retry is a request")
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertTrue(retries.attempts.isBalanced)
        XCTAssertGreaterThan(retries.recovered, 100)
        XCTAssertEqual(result.counts.succeeded + retries.exhausted, 600, "every push delivered or given up")
        XCTAssertEqual(result.rejectedByReason["ServiceUnavailable"], result.counts.rejected)
        XCTAssertEqual(mock.server.stats.snapshot().pushes, result.counts.sent, "the mock saw every attempt")
    }
}

/// The goal in the final: one goal to every activity, all due at once, timed from the start.
final class BurstTests: XCTestCase {
    func testABurstSendsOneGoalToEveryActivityTimedFromTheStart() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: nil, activities: 300)
        load.pacing = .burst(.goal)
        load.threads = 2
        let accepted = AcceptedTally()
        let result = try LoadTest.run(load, tokens: mock.tokens(), onAccepted: { push in accepted.add(push) })

        XCTAssertEqual(result.counts.succeeded, 300)
        XCTAssertEqual(accepted.kinds, [.goal: 300])
        XCTAssertEqual(accepted.activities.count, 300, "every activity once")
        XCTAssertEqual(result.mode, .openLoop)
        // Every push is timed from the burst's start: the slowest answer is as old as the run.
        XCTAssertEqual(Double(result.latency.max) / 1e6, result.durationSeconds, accuracy: 0.2)
    }

    func testAScenarioWithoutTheKindSaysSo() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: nil, activities: 10, scenario: "delivery")
        load.pacing = .burst(.goal)
        XCTAssertThrowsError(try LoadTest.run(load, tokens: mock.tokens())) { error in
            XCTAssertTrue("\(error)".contains("the delivery scenario sends no goal update to burst"), "\(error)")
        }
    }
}
