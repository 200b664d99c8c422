import Budget
import Harness
import LoadEngine
import MockAPNs
import Reports
import Transport
import Wire
import Workload
import XCTest

/// A run that updates its activities by iOS 18 broadcast, against the embedded mock: channels
/// created before and deleted after, one broadcast per group step, books kept apart, the
/// mock's count and the budget in agreement with the offline model.
final class BroadcastRunTests: XCTestCase {
    private let tokens = {
        try! ProviderTokenCache(key: ES256PrivateKey(), keyID: "PBKEY00001", teamID: "PBTEAM0001")
    }()

    private func session(_ scenario: Scenario, threads: Int = 2, pacing: Pacing = .closedLoop) throws -> RunSession {
        RunSession(
            load: LoadConfiguration(
                transport: TransportConfiguration(origin: "", connections: 4, streamsPerConnection: 50),
                scenario: scenario,
                pacing: pacing,
                threads: threads
            ),
            target: .embeddedMock(MockAPNsConfiguration(threads: 2)),
            tokens: tokens,
            budget: try BudgetParameters.preset(named: "community").parameters
        )
    }

    /// `groups` matches among `fans` fans, every one followed by broadcast.
    private func matches(_ groups: Int, of fans: Int) throws -> Scenario {
        var scenario = try Scenario.builtIn(named: "football").scaled(toActivities: fans).delivered(by: .broadcast)
        scenario.cohorts[0].groups = groups
        return scenario
    }

    /// A session toward `mock` as an endpoint, its channel port given as `--channel-endpoint` is.
    private func endpointSession(_ mock: MockFixture, _ scenario: Scenario, comparesStats: Bool) throws -> RunSession {
        var run = RunSession(
            load: LoadConfiguration(
                transport: TransportConfiguration(
                    origin: mock.origin,
                    connections: 2,
                    streamsPerConnection: 50,
                    trustedCertificatesPEM: mock.server.certificatePEM
                ),
                scenario: scenario,
                threads: 2
            ),
            target: .endpoint(comparesStats: comparesStats),
            tokens: mock.tokens(),
            budget: nil
        )
        run.channelOrigin = "https://127.0.0.1:\(try XCTUnwrap(mock.server.channelPort))"
        return run
    }

    /// Three matches of 100 fans on two workers: the middle match straddles the equal split, and
    /// stays with one worker, so each of its steps is sent once.
    func testABroadcastRunSendsOneBroadcastPerGroupStepAndAgreesWithTheModel() throws {
        let scenario = try matches(3, of: 300)
        let outcome = try session(scenario).run()
        let result = outcome.result
        let offline = try BudgetSimulation(
            scenario: scenario,
            parameters: try BudgetParameters.preset(named: "community").parameters,
            threads: 2
        ).run().tally
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.counts.succeeded, result.counts.sent, "every push accepted")
        XCTAssertEqual(result.counts.sent, 300 + offline.broadcasts, "300 starts and the broadcasts")
        XCTAssertEqual(result.broadcasts.counts.sent, offline.broadcasts)
        XCTAssertEqual(result.broadcasts.counts.succeeded, offline.broadcasts)
        XCTAssertEqual(result.broadcasts.devicesReached, offline.broadcastDeliveries)
        XCTAssertEqual(result.broadcasts.latency.totalCount, UInt64(offline.broadcasts))
        XCTAssertEqual(result.channels.created, 3)
        XCTAssertEqual(result.channels.deleted, 3)
        XCTAssertEqual(result.channels.failedByReason, [:])
        XCTAssertEqual(result.apnsIDMismatches, 0, "broadcast answers carry apns-request-id, not apns-id")
        let server = try XCTUnwrap(outcome.serverCounts)
        XCTAssertTrue(ServerCheck(result: result, server: server).matches, "\(server)")
        let fed = try XCTUnwrap(outcome.budget).finish(name: "run")
        XCTAssertTrue(fed.tally.outcomes == offline.outcomes, "the devices' budget is the offline model's")
        XCTAssertEqual(fed.tally.broadcasts, offline.broadcasts)
        let summary = RunSummary(result, context: RunContext(runID: "t", commandLine: "", targetDescription: "mock"))
        XCTAssertEqual(summary.broadcasts?.devicesReached, offline.broadcastDeliveries)
        XCTAssertEqual(summary.channelRequests?.created, 3)
        let restored = try summary.runResult()
        XCTAssertEqual(restored.broadcasts, result.broadcasts)
        XCTAssertEqual(restored.channels, result.channels)
    }

    /// Toward a mock endpoint with its channel port (`--channel-endpoint`): the mock's
    /// subscribers are the starts that named each channel, so its deliveries are the run's
    /// devices reached, and it saw every channel created and deleted.
    func testTheMocksSubscribersAreTheRunsStarts() throws {
        let mock = try MockFixture(channelPort: 0)
        let run = try endpointSession(mock, try matches(2, of: 200), comparesStats: true)
        let outcome = try run.run()
        let stats = mock.server.stats.snapshot()
        XCTAssertEqual(outcome.result.broadcasts.counts.succeeded, stats.broadcastsAccepted)
        XCTAssertEqual(outcome.result.broadcasts.devicesReached, stats.broadcastDeliveries)
        XCTAssertEqual(stats.broadcastDeliveries, stats.broadcastsAccepted * 100, "100 fans a match subscribed")
        XCTAssertEqual(stats.channelsCreated, 2)
        XCTAssertEqual(stats.channelsDeleted, 2)
        let server = try XCTUnwrap(outcome.serverCounts)
        XCTAssertTrue(ServerCheck(result: outcome.result, server: server).matches, "\(server)")
    }

    /// An app at its channel limit: the run stops before its first push with one line naming
    /// the limit, and deletes the channels it had created.
    func testAChannelLimitStopsTheRunBeforeItsFirstPushAndLeavesNothingBehind() throws {
        let mock = try MockFixture(channelPort: 0, channelLimit: 1)
        let run = try endpointSession(mock, try matches(2, of: 100), comparesStats: false)
        XCTAssertThrowsError(try run.run()) { error in
            XCTAssertTrue(
                "\(error)".contains("400 CannotCreateChannelConfig (the app's channel limit is reached)"),
                "\(error)"
            )
        }
        let stats = mock.server.stats.snapshot()
        XCTAssertEqual(stats.pushes + stats.broadcasts, 0, "no push was sent")
        XCTAssertEqual(stats.channelsCreated, 1)
        XCTAssertEqual(stats.channelsDeleted, 1)
    }

    /// `--burst goal`: one broadcast per match reaches every fan, where per token one push per
    /// fan is sent.
    func testABurstIsOneBroadcastPerGroup() throws {
        let scenario = try matches(2, of: 500)
        let result = try session(scenario, pacing: .burst(.goal)).run().result
        XCTAssertEqual(result.counts.sent, 2)
        XCTAssertEqual(result.broadcasts.counts.succeeded, 2)
        XCTAssertEqual(result.broadcasts.devicesReached, 500)
        XCTAssertEqual(result.broadcasts.deviceReach.totalCount, 500, "each fan counted once, at its match's answer")
        let perToken = try session(scenario.delivered(by: .token), pacing: .burst(.goal)).run().result
        XCTAssertEqual(perToken.counts.sent, 500)
        XCTAssertEqual(perToken.broadcasts.counts.sent, 0)
        XCTAssertEqual(perToken.channels.requests, 0)
        XCTAssertEqual(perToken.broadcasts.deviceReach.totalCount, 500, "each fan counted at its own push's answer")
        let summary = RunSummary(perToken, context: RunContext(runID: "t", commandLine: "", targetDescription: "mock"))
        XCTAssertEqual(try summary.runResult().broadcasts.deviceReach, perToken.broadcasts.deviceReach)
    }
}
