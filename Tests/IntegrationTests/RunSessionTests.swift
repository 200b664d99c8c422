import Budget
import Harness
import LoadEngine
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

    func testAnEndpointThatIsNotAMockIsRunWithoutACount() throws {
        // A port nothing listens on: every push fails to connect, and no /stats answer.
        let outcome = try session(.endpoint(comparesStats: true), origin: "https://127.0.0.1:1", requests: 20).run()
        XCTAssertNil(outcome.serverCounts)
        XCTAssertEqual(outcome.result.erroredByKind, ["connect_refused": 20])
        XCTAssertTrue(outcome.result.nothingSucceeded)
    }
}
