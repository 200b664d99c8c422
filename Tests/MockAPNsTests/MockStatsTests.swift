import Foundation
import Synchronization
import XCTest

@testable import MockAPNs
@testable import Wire

/// What the mock counts, and the two forms it serves the counts in (`/stats`, `/metrics`).
final class MockStatsTests: XCTestCase {
    private static let key = try! ES256PrivateKey()
    private let start: Int64 = 1_800_000_000
    private let clock = MovableClock(1_800_000_000)
    private let token = String(repeating: "ab", count: 32)

    private func responder(stats: MockStats) -> PushResponder {
        let verifier = ProviderTokenVerifier(keys: [
            ProviderKey(
                keyID: "ABC123DEFG",
                teamID: "DEF123GHIJ",
                publicKey: try! ES256PublicKey(pem: Self.key.publicKeyPEM())
            )
        ])
        return PushResponder(
            validator: PushRequestValidator(verifier: verifier),
            stats: stats,
            clock: { [clock] in clock.now },
            environment: .production,
            recorder: nil,
            faults: nil
        )
    }

    /// Provider tokens by issue time: a sender reuses one token, signed once.
    private var signed: [Int64: ProviderToken] = [:]

    private func push(signedAt issuedAt: Int64, type: String?, priority: String?) throws -> InboundPush {
        if signed[issuedAt] == nil {
            signed[issuedAt] = try ProviderToken.sign(
                keyID: "ABC123DEFG",
                teamID: "DEF123GHIJ",
                issuedAt: issuedAt,
                with: Self.key
            )
        }
        let jwt = signed[issuedAt]!
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer " + jwt.jwt), ("apns-topic", "com.example.app.push-type.liveactivity"),
        ]
        if let type { headers.append(("apns-push-type", type)) }
        if let priority { headers.append(("apns-priority", priority)) }
        var push = InboundPush(method: "POST", path: "/3/device/" + token, headers: headers, bodyLength: 100)
        push.connection = 50_000
        return push
    }

    func testAnswersCountWhenWrittenByTypePriorityAndConnection() throws {
        let stats = MockStats()
        let responder = responder(stats: stats)
        let connection = ConnectionState(streamsAfterToken: 1000, raised: true)
        let accepted = responder.answer(
            try push(signedAt: start, type: "liveactivity", priority: "10"),
            on: connection
        )
        XCTAssertEqual(accepted.status, 200)
        XCTAssertEqual(stats.snapshot().pushes, 0, "an answer counts once written")
        responder.count(accepted, writtenFrom: stats.clients.slot(of: "10.77.0.11"))
        let rejected = responder.answer(try push(signedAt: start, type: "nonsense", priority: "7"), on: connection)
        responder.count(rejected, writtenFrom: stats.clients.slot(of: "10.77.0.12"))
        let lost = responder.answer(try push(signedAt: start, type: "liveactivity", priority: nil), on: connection)
        responder.count(lost, writtenFrom: nil)
        let untyped = responder.answer(try push(signedAt: start, type: nil, priority: "5"), on: connection)
        responder.count(untyped, writtenFrom: stats.clients.slot(of: "10.77.0.11"))

        let snapshot = stats.snapshot()
        XCTAssertEqual(snapshot.pushes, 3)
        XCTAssertEqual(snapshot.accepted, 2, "a push without a type is accepted, as APNs infers one")
        XCTAssertEqual(snapshot.rejectedByReason, ["InvalidPushType": 1])
        XCTAssertEqual(snapshot.answersUnsent, 1)
        XCTAssertEqual(snapshot.pushesByPushType, ["liveactivity": 1, "invalid": 1, "absent": 1])
        XCTAssertEqual(snapshot.pushesByPriority, ["10": 1, "invalid": 1, "5": 1])
        XCTAssertEqual(snapshot.pushesByConnection, [50_000: 3])
        XCTAssertEqual(snapshot.pushesByClient, ["10.77.0.11": 2, "10.77.0.12": 1], "an unsent answer is no host's")
    }

    func testConnectionAndHostChurnCannotGrowThePerConnectionOrPerHostCountsWithoutBound() throws {
        let stats = MockStats()
        let responder = responder(stats: stats)
        let limit = MockStats.Snapshot.connectionLimit
        var answer = responder.answer(
            try push(signedAt: start, type: "alert", priority: "10"),
            on: ConnectionState(streamsAfterToken: 1, raised: true)
        )
        for port in 1...(limit + 5) {
            answer.connection = port
            responder.count(answer, writtenFrom: stats.clients.slot(of: "10.0.\(port / 256).\(port % 256)"))
        }
        answer.connection = 1
        responder.count(answer, writtenFrom: stats.clients.slot(of: "10.0.0.1"))
        let snapshot = stats.snapshot()
        XCTAssertEqual(snapshot.pushesByConnection.count, limit + 1)
        XCTAssertEqual(snapshot.pushesByConnection[0], 5, "the connections past the limit, together")
        XCTAssertEqual(snapshot.pushesByConnection[1], 2, "a named connection keeps its own count")
        let clientLimit = MockStats.Snapshot.clientLimit
        XCTAssertEqual(snapshot.pushesByClient.count, clientLimit + 1)
        XCTAssertEqual(snapshot.pushesByClient["other"], limit + 5 - clientLimit, "the hosts past the limit, together")
        XCTAssertEqual(snapshot.pushesByClient["10.0.0.1"], 2, "a named host keeps its own count")
    }

    func testAConnectionAdoptingANewTokenCountsAsAnUpdate() throws {
        let stats = MockStats()
        let responder = responder(stats: stats)
        let connection = ConnectionState(streamsAfterToken: 1000, raised: true)
        _ = responder.answer(try push(signedAt: start, type: "liveactivity", priority: "10"), on: connection)
        XCTAssertEqual(stats.snapshot().providerTokenUpdates, 0, "a connection's first token is no update")
        let tooSoon = responder.answer(
            try push(signedAt: start + 60, type: "liveactivity", priority: "10"),
            on: connection
        )
        XCTAssertEqual(tooSoon.reason, .tooManyProviderTokenUpdates)
        XCTAssertEqual(stats.snapshot().providerTokenUpdates, 0, "a refused token is not adopted")
        clock.now = start + 21 * 60
        let later = responder.answer(
            try push(signedAt: start + 21 * 60, type: "liveactivity", priority: "10"),
            on: connection
        )
        XCTAssertEqual(later.status, 200)
        XCTAssertEqual(stats.snapshot().providerTokenUpdates, 1)
    }

    func testEachThreadCountsOnItsLaneAndAReadAddsThemAll() {
        let stats = MockStats(lanes: 3)
        let threads = DispatchGroup()
        for lane in 0..<3 {
            // Entered before the thread starts: one that finished first would leave an empty group.
            threads.enter()
            Thread {
                MockStats.claimLane(lane)
                for _ in 0..<1000 {
                    stats.update {
                        $0.pushes += 1
                        $0.rejectedByReason["BadDeviceToken", default: 0] += 1
                        $0.pushesByConnection[40_000 + lane, default: 0] += 1
                        $0.broadcastLastDeliveryMicrosMax = max($0.broadcastLastDeliveryMicrosMax, 10 * (lane + 1))
                    }
                }
                threads.leave()
            }.start()
        }
        threads.wait()
        let snapshot = stats.snapshot()
        XCTAssertEqual(snapshot.pushes, 3000)
        XCTAssertEqual(snapshot.rejectedByReason, ["BadDeviceToken": 3000])
        XCTAssertEqual(snapshot.pushesByConnection, [40_000: 1000, 40_001: 1000, 40_002: 1000])
        XCTAssertEqual(snapshot.broadcastLastDeliveryMicrosMax, 30, "the longest, not a sum")
        XCTAssertFalse(snapshot.instance.isEmpty)
    }

    /// Adding lanes must miss no counter: every stored property is summed, summed by label, or
    /// one of the three handled by name.
    func testAddingLanesCoversEveryCounter() {
        let byName = ["instance", "pushesByConnection", "broadcastLastDeliveryMicrosMax"]
        let stored = Mirror(reflecting: MockStats.Snapshot()).children.count
        XCTAssertEqual(Set(MockStats.Snapshot.sums).count, MockStats.Snapshot.sums.count, "none twice")
        XCTAssertEqual(Set(MockStats.Snapshot.labelledSums).count, MockStats.Snapshot.labelledSums.count)
        XCTAssertEqual(
            MockStats.Snapshot.sums.count + MockStats.Snapshot.labelledSums.count + byName.count,
            stored
        )
        var one = MockStats.Snapshot()
        for path in MockStats.Snapshot.sums { one[keyPath: path] = 1 }
        for path in MockStats.Snapshot.labelledSums { one[keyPath: path] = ["x": 1] }
        var two = one
        two.add(one)
        for path in MockStats.Snapshot.sums { XCTAssertEqual(two[keyPath: path], 2) }
        for path in MockStats.Snapshot.labelledSums { XCTAssertEqual(two[keyPath: path], ["x": 2]) }
    }

    func testMetricsFollowPrometheusTextFormat() throws {
        var snapshot = MockStats.Snapshot()
        snapshot.accepted = 90
        snapshot.pushes = 100
        snapshot.rejectedByReason = ["Unregistered": 10]
        snapshot.pushesByPushType = ["liveactivity": 100]
        snapshot.pushesByPriority = ["10": 60, "5": 40]
        snapshot.faultsInjected = [#"Odd"Reason\"#: 1]
        snapshot.injectedDelayMicros = 2_500_000
        let text = snapshot.prometheusText(providerTokenFullChecks: 3)
        let lines = text.split(separator: "\n").map(String.init)

        XCTAssertTrue(lines.contains(#"pushbench_mock_pushes_total{status="200",reason=""} 90"#), text)
        XCTAssertTrue(lines.contains(#"pushbench_mock_pushes_total{status="410",reason="Unregistered"} 10"#), text)
        XCTAssertTrue(lines.contains(#"pushbench_mock_pushes_by_priority_total{priority="5"} 40"#), text)
        XCTAssertTrue(lines.contains(#"pushbench_mock_faults_injected_total{reason="Odd\"Reason\\"} 1"#), text)
        XCTAssertTrue(lines.contains("pushbench_mock_injected_delay_seconds_total 2.5"), text)
        XCTAssertTrue(lines.contains("pushbench_mock_provider_token_full_checks_total 3"), text)
        // Every sample belongs to a metric declared just before it with HELP and TYPE.
        var declared: String?
        for line in lines {
            if line.hasPrefix("# HELP ") {
                declared = line.split(separator: " ")[2].description
                continue
            }
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                XCTAssertEqual(parts[2].description, declared)
                XCTAssertTrue(["counter", "gauge"].contains(parts[3]), line)
                continue
            }
            let name = line.prefix { $0 != "{" && $0 != " " }
            XCTAssertEqual(String(name), declared, line)
            XCTAssertNotNil(Double(line.split(separator: " ").last ?? ""), line)
        }
    }
}

/// A clock a test sets by hand, read by the mock from its event loop.
private final class MovableClock: Sendable {
    private let seconds: Atomic<Int64>

    init(_ seconds: Int64) { self.seconds = Atomic(seconds) }

    var now: Int64 {
        get { seconds.load(ordering: .relaxed) }
        set { seconds.store(newValue, ordering: .relaxed) }
    }
}
