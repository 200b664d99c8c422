import XCTest

@testable import Workload

final class ScenarioStreamTests: XCTestCase {
    private func events(_ scenario: Scenario, shard: Shard = .whole) throws -> [WorkloadEvent] {
        Array(try ScenarioStream(scenario, shard: shard))
    }

    private func small(_ kind: ActivityKind, activities: Int = 60, groups: Int? = nil) throws -> Scenario {
        var scenario = try Scenario.builtIn(named: kind.rawValue).scaled(toActivities: activities)
        if let groups { scenario.cohorts[0].groups = groups }
        return scenario
    }

    func testEveryKindStartsAndEndsEachActivityOnceInTimeOrder() throws {
        for kind in ActivityKind.allCases {
            let stream = try events(try small(kind, groups: 6))
            XCTAssertTrue(
                zip(stream, stream.dropFirst()).allSatisfy { $0.timeMs <= $1.timeMs },
                "\(kind) in time order"
            )
            let byActivity = Dictionary(grouping: stream, by: \.activity)
            XCTAssertEqual(byActivity.count, 60, "\(kind)")
            for (activity, pushes) in byActivity {
                XCTAssertEqual(pushes.first?.phase, .start, "\(kind) \(activity) starts first")
                XCTAssertEqual(pushes.last?.phase, .end, "\(kind) \(activity) ends last")
                XCTAssertEqual(pushes.filter { $0.phase == .start }.count, 1)
                XCTAssertEqual(pushes.filter { $0.phase == .end }.count, 1)
                XCTAssertTrue(zip(pushes, pushes.dropFirst()).allSatisfy { $0.timeMs <= $1.timeMs })
                XCTAssertTrue(pushes.allSatisfy { $0.activityKind == kind })
                XCTAssertEqual(pushes.first?.tokenKind, .pushToStart)
                XCTAssertTrue(
                    pushes.dropFirst().allSatisfy { $0.tokenKind == .activityUpdate && $0.tokenIndex / 2 == activity }
                )
                XCTAssertLessThan(pushes.last!.timeMs - pushes.first!.timeMs, 8 * 3_600_000, "within the active limit")
            }
            for (_, pushes) in Dictionary(grouping: stream, by: \.group) {
                let updates = pushes.filter { $0.phase != .start }
                XCTAssertEqual(Set(updates.map(\.activity)).count, 10, "\(kind): six groups of ten")
                let timeline = Dictionary(grouping: updates, by: \.activity).values.map { $0.map(\.kind) }
                XCTAssertEqual(
                    Set(timeline.map { $0.map(\.rawValue).joined(separator: ",") }).count,
                    1,
                    "one timeline per group"
                )
            }
        }
    }

    func testTheSameSeedGivesTheSameEventsAndAnotherDiffers() throws {
        let scenario = try small(.delivery, activities: 200)
        XCTAssertEqual(try events(scenario), try events(scenario))
        var other = scenario
        other.seed = 2
        XCTAssertNotEqual(try events(other), try events(scenario))
    }

    func testShardsPartitionTheEventsExactly() throws {
        var scenario = try small(.football, activities: 300, groups: 7)
        scenario.cohorts.append(
            Scenario.Cohort(kind: .upload, activities: 101, distribution: .uniform, spreadSeconds: 600)
        )
        let whole = try events(scenario)
        var union: [WorkloadEvent] = []
        var seen = Set<Int>()
        for index in 0..<3 {
            let part = try events(scenario, shard: try Shard(index: index, count: 3))
            let activities = Set(part.map(\.activity))
            XCTAssertTrue(seen.isDisjoint(with: activities), "shards share no activity")
            seen.formUnion(activities)
            union += part
        }
        func order(_ a: WorkloadEvent, _ b: WorkloadEvent) -> Bool {
            (a.timeMs, a.group, a.activity, a.kind.rawValue) < (b.timeMs, b.group, b.activity, b.kind.rawValue)
        }
        XCTAssertEqual(union.count, whole.count)
        XCTAssertEqual(union.sorted(by: order), whole.sorted(by: order))
        XCTAssertEqual(seen, Set(0..<401))
    }

    func testGoalsAndCardsArePoissonAtTheirMatchRates() throws {
        let matches = 3000
        let stream = try events(try small(.football, activities: matches, groups: matches))
        let goals = Double(stream.filter { $0.kind == .goal }.count) / Double(matches)
        let cards = Double(stream.filter { $0.kind == .card }.count) / Double(matches)
        // Standard errors: sqrt(2.7 / 3000) ≈ 0.03 and sqrt(4 / 3000) ≈ 0.037.
        XCTAssertEqual(goals, FootballTimeline.goalsPerMatch, accuracy: 0.15)
        XCTAssertEqual(cards, FootballTimeline.cardsPerMatch, accuracy: 0.18)
        let finals = stream.filter { $0.kind == .fullTime }
        XCTAssertEqual(finals.count, matches)
        let goalsSeen = stream.filter { $0.kind == .goal }.count
        XCTAssertEqual(
            finals.map { Int($0.state[0] + $0.state[1]) }.reduce(0, +),
            goalsSeen,
            "the score counts the goals"
        )
        let minutesPerMatch = Double(stream.filter { $0.kind == .minute }.count) / Double(matches)
        XCTAssertEqual(minutesPerMatch, FootballTimeline.expectedMinutesPlayed, accuracy: 0.5)
    }

    func testAMatchFansEachEventOutToTheWholeGroupAtOnce() throws {
        let stream = try events(try small(.football, activities: 500, groups: 1))
        let goals = stream.filter { $0.kind == .goal }
        XCTAssertEqual(goals.count % 500, 0)
        XCTAssertTrue(Dictionary(grouping: goals, by: \.timeMs).values.allSatisfy { $0.count == 500 })
        let starts = stream.filter { $0.phase == .start }
        XCTAssertTrue(starts.allSatisfy { $0.timeMs < 1_800_000 }, "fans start in the 30 minutes before kick-off")
        XCTAssertTrue(stream.filter { $0.phase != .start }.allSatisfy { $0.timeMs >= 1_800_000 })
        XCTAssertTrue(goals.allSatisfy { $0.priority == 10 && $0.alert })
        XCTAssertTrue(stream.filter { $0.kind == .minute }.allSatisfy { $0.priority == 5 && !$0.alert })
    }

    /// With broadcast, each step of a group is one event to its channel that reaches every
    /// subscriber, and the starts subscribe instead of asking for an update token.
    func testABroadcastCohortSendsOneEventPerStepToTheGroupsChannel() throws {
        let perToken = try small(.football, activities: 90, groups: 3)
        let broadcast = try events(perToken.delivered(by: .broadcast))
        let tokens = try events(perToken)
        let starts = broadcast.filter { $0.phase == .start }
        XCTAssertEqual(starts.count, 90)
        XCTAssertTrue(
            starts.allSatisfy { $0.delivery == .broadcast && !$0.inputPushToken && $0.subscribers.count == 1 }
        )
        let steps = broadcast.filter { $0.phase != .start }
        XCTAssertTrue(steps.allSatisfy { $0.tokenKind == .channel && $0.tokenIndex == $0.group && $0.sentHere })
        XCTAssertTrue(steps.allSatisfy { $0.subscribers.count == 30 && $0.subscribers.lowerBound == $0.activity })
        // The same steps at the same times as the per-token fan-out, one event instead of thirty.
        let fannedOut = tokens.filter { $0.phase != .start }
        XCTAssertEqual(steps.count * 30, fannedOut.count)
        XCTAssertEqual(
            steps.flatMap { step in Array(repeating: step.timeMs, count: 30) },
            fannedOut.map(\.timeMs)
        )
    }

    /// A group split between shards is sent by the shard holding its first activity; every
    /// shard holds the event for its own subscribers.
    func testABroadcastToASplitGroupIsSentOnceAndReachesEveryShard() throws {
        let scenario = try small(.football, activities: 100, groups: 1).delivered(by: .broadcast)
        let whole = try events(scenario).filter { $0.phase != .start }
        let shards = try (0..<3).map { try events(scenario, shard: Shard(index: $0, count: 3)) }
        for (index, shard) in shards.enumerated() {
            let steps = shard.filter { $0.phase != .start }
            XCTAssertEqual(steps.count, whole.count)
            XCTAssertTrue(steps.allSatisfy { $0.sentHere == (index == 0) }, "shard \(index)")
            let activities = try Shard(index: index, count: 3).range(in: 100)
            XCTAssertTrue(steps.allSatisfy { $0.subscribers == activities })
        }
    }

    func testPrioritiesRotationAndTheActiveLimitFollowTheScenario() throws {
        var scenario = try small(.upload, activities: 50)
        scenario.cohorts[0].priorities = [.progress: 10]
        scenario.cohorts[0].rotateFraction = 1
        scenario.cohorts[0].rotationWithinSeconds = 1
        scenario.activeLimitSeconds = 10
        let stream = try events(scenario)
        let updates = stream.filter { $0.phase == .update }
        XCTAssertTrue(updates.allSatisfy { $0.priority == 10 })
        XCTAssertTrue(
            updates.filter { $0.kind == .progress }.allSatisfy { $0.tokenIndex % 2 == 1 },
            "rotated after 1 s"
        )
        let ends = stream.filter { $0.phase == .end }
        XCTAssertEqual(ends.count, 50)
        XCTAssertTrue(ends.allSatisfy { $0.kind == .limit || $0.kind == .complete })
        XCTAssertTrue(ends.contains { $0.kind == .limit }, "uploads longer than 10 s are ended at the limit")
        scenario.pastLimit = .keepSending
        XCTAssertFalse(try events(scenario).contains { $0.kind == .limit })
    }

    func testWithoutPushToStartTheFirstPushIsAnUpdate() throws {
        var scenario = try small(.rideshare, activities: 20)
        scenario.cohorts[0].pushToStart = false
        let stream = try events(scenario)
        XCTAssertFalse(stream.contains { $0.phase == .start })
        XCTAssertEqual(Set(stream.map(\.activity)).count, 20)
    }

    func testGroupsStartInOrderOverTheSpread() throws {
        let scenario = try small(.delivery, activities: 1000)
        let starts = try events(scenario).filter { $0.phase == .start }
        XCTAssertEqual(starts.count, 1000)
        XCTAssertEqual(starts.map(\.activity), Array(0..<1000), "stratified starts rise with the id")
        XCTAssertLessThan(starts.last!.timeMs, 12 * 3_600_000)
        XCTAssertGreaterThan(starts.last!.timeMs, 11 * 3_600_000)
    }
}
