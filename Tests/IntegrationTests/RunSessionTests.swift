import Budget
import Harness
import LoadEngine
import MockAPNs
import Reports
import Transport
import Wire
import Workload
import XCTest

/// A whole run as `pushbench run` does it, called directly: the embedded mock's lifecycle, the
/// server's count, the budget fed with what was accepted, and an endpoint's /stats compared.
final class RunSessionTests: XCTestCase {
    private func session(_ target: RunSession.Target, origin: String = "", requests: Int = 600) throws -> RunSession {
        RunSession(
            load: LoadConfiguration(
                transport: TransportConfiguration(origin: origin, connections: 2, streamsPerConnection: 20),
                scenario: try Scenario.builtIn(named: "football").scaled(toActivities: 100),
                requests: requests
            ),
            target: target,
            tokens: ProviderTokenCache(key: try ES256PrivateKey(), keyID: "PBKEY00001", teamID: "PBTEAM0001"),
            budget: try BudgetParameters.preset(named: "community").parameters
        )
    }

    func testAnEmbeddedMockRunCountsAgreeAndFeedTheBudget() throws {
        var notices: [String] = []
        let outcome = try session(.embeddedMock()).run(notice: { notices.append($0) })
        XCTAssertEqual(outcome.result.counts.succeeded, 600)
        XCTAssertTrue(outcome.result.counts.isBalanced)
        let server = try XCTUnwrap(outcome.serverCounts)
        XCTAssertTrue(ServerCheck(result: outcome.result, server: server).matches, "\(server)")
        XCTAssertEqual(outcome.targetDescription, "embedded mock")
        XCTAssertTrue(notices.first?.hasPrefix("mock APNs on https://127.0.0.1:") ?? false, "\(notices)")
        let budget = try XCTUnwrap(outcome.budget).finish(name: "test")
        XCTAssertEqual(budget.tally.pushes, 600, "every accepted push reached the budget model")
    }

    /// On the scenario's clock, a run's budget is the scenario's budget: the same outcomes,
    /// minute by minute, as `pushbench budget` simulates, however the answers overtook each
    /// other on many streams and workers, and however fast the run was.
    func testARunsBudgetOnTheScenarioClockIsTheBudgetCommands() throws {
        let scenario = try Scenario.builtIn(named: "football").scaled(toActivities: 200)
        let parameters = try BudgetParameters.preset(named: "community").parameters
        let run = RunSession(
            load: LoadConfiguration(
                transport: TransportConfiguration(origin: "", connections: 4, streamsPerConnection: 100),
                scenario: scenario,
                threads: 2
            ),
            target: .embeddedMock(MockAPNsConfiguration(threads: 2)),
            tokens: ProviderTokenCache(key: try ES256PrivateKey(), keyID: "PBKEY00001", teamID: "PBTEAM0001"),
            budget: parameters
        )
        let outcome = try run.run()
        XCTAssertEqual(outcome.result.counts.succeeded, outcome.result.counts.sent, "every push was accepted")
        let fed = try XCTUnwrap(outcome.budget).finish(name: "run", tookEveryEvent: outcome.result.tookEveryEvent)
        let simulated = try BudgetSimulation(scenario: scenario, parameters: parameters, threads: 3).run()

        XCTAssertEqual(fed.tally.pushes, outcome.result.counts.succeeded)
        for outcome in BudgetOutcome.allCases {
            XCTAssertEqual(fed.tally.count(outcome), simulated.tally.count(outcome), outcome.rawValue)
        }
        XCTAssertTrue(fed.tally.outcomes == simulated.tally.outcomes, "outcomes by event kind and priority")
        let differingMinute = zip(fed.tally.minutes, simulated.tally.minutes).enumerated().first {
            $0.element.0 != $0.element.1
        }?.offset
        XCTAssertNil(differingMinute, "the per-minute series differ from minute \(differingMinute ?? -1)")
        XCTAssertEqual(fed.tally.minutes.count, simulated.tally.minutes.count)
        XCTAssertTrue(fed.tally.remainingPercent == simulated.tally.remainingPercent, "budget left per minute")
        XCTAssertEqual(fed.tally.neverShownByLabel, simulated.tally.neverShownByLabel)
        XCTAssertEqual(fed.tally.activitiesThrottled, simulated.tally.activitiesThrottled)
        XCTAssertEqual(fed.tally.droppedAfterEnd, simulated.tally.droppedAfterEnd)
        for (mine, theirs) in zip(fed.tally.lagMsByLabel, simulated.tally.lagMsByLabel) {
            XCTAssertEqual(mine.totalCount, theirs.totalCount)
            XCTAssertEqual(mine.valueAtPercentile(99), theirs.valueAtPercentile(99))
        }
        XCTAssertEqual(fed.runFeed?.clock, .scenario)
        XCTAssertEqual(fed.runFeed?.partial, false, "the run sent the whole scenario")
        XCTAssertNil(fed.runFeed?.wholeScenario)
    }

    /// A run cut short by `--requests` says how much of the scenario its budget covers; on the
    /// run's clock, pushes reach the devices as fast as they were sent, so a two-hour match
    /// sent in seconds is mostly coalesced.
    func testAPartialRunSaysWhatItsBudgetCoversAndTheRunClockCompressesTime() throws {
        var cut = try session(.embeddedMock(), requests: 600)
        let partial = try cut.run()
        XCTAssertFalse(partial.result.tookEveryEvent)
        let covered = try XCTUnwrap(partial.budget).finish(name: "cut", tookEveryEvent: false)
        XCTAssertEqual(covered.runFeed?.partial, true)
        let whole = try XCTUnwrap(covered.runFeed?.wholeScenario)
        XCTAssertEqual(whole.pushes, 10_700, "football's 107 pushes per activity, for 100 activities")
        XCTAssertLessThan(try XCTUnwrap(covered.runFeed?.spanMs).upperBound, whole.lastEventMs)

        cut.load.requests = nil
        cut.budgetClock = .run
        let fast = try cut.run()
        let compressed = try XCTUnwrap(fast.budget).finish(name: "fast")
        XCTAssertEqual(compressed.runFeed?.clock, .run)
        XCTAssertGreaterThan(
            compressed.tally.count(.coalesced),
            compressed.tally.pushes / 2,
            "on the run's clock, the match's updates fall inside a few low-priority windows"
        )
    }

    func testAnEndpointThatIsNotAMockIsRunWithoutACount() throws {
        // A port nothing listens on: every push fails to connect, and no /stats answer.
        let outcome = try session(.endpoint(comparesStats: true), origin: "https://127.0.0.1:1", requests: 20).run()
        XCTAssertNil(outcome.serverCounts)
        XCTAssertEqual(outcome.result.erroredByKind, ["connect_refused": 20])
        XCTAssertTrue(outcome.result.nothingSucceeded)
    }
}
