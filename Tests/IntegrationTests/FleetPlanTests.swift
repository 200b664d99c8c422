import Histogram
import LoadEngine
import Workload
import XCTest

@testable import Analysis
@testable import Reports

/// `pushbench plan`'s arithmetic on a run whose figures are known: 10 µs of sender CPU per
/// push, 20 ms latency, one connection of 100 streams.
final class FleetPlanTests: XCTestCase {
    private func measuredRun() throws -> RunResult {
        var counts = OutcomeCounts()
        counts.sent = 10_000
        counts.succeeded = 10_000
        var latency = Histogram.latency(digits: .three)
        _ = latency.record(20_000, count: 10_000)
        return RunResult(
            configuration: LoadConfiguration(
                transport: .init(origin: "https://127.0.0.1:1", connections: 1, streamsPerConnection: 100),
                scenario: try Scenario.builtIn(named: "football")
            ),
            mode: .closedLoop,
            startedAtUnix: 0,
            durationSeconds: 2,
            counts: counts,
            warmupCounts: OutcomeCounts(),
            warmupRejectedByReason: [:],
            latency: latency,
            rejectedByReason: [:],
            erroredByKind: [:],
            perConnection: [40_000: 10_000],
            apnsIDMismatches: 0,
            timeline: [],
            scheduleLag: Histogram.latency(digits: .two),
            skippedForGoneTokens: 0,
            startsNotSent: 0,
            retries: RetryCounts(),
            recoveries: nil,
            stageTimes: StageTimes(),
            engineCPUSeconds: 0.1,
            interrupted: false
        )
    }

    func testAGoalInAFinalNeedsCoresForItsRateAndConnectionsForItsInFlightRequests() throws {
        let plan = FleetPlan(
            measured: try measuredRun(),
            target: .init(
                ratePerSecond: 1_000_000,
                peak: (10_000_000, 10),
                latencySeconds: 0.04,
                streamsPerConnection: 1000,
                p99Seconds: 0.1
            )
        )
        XCTAssertEqual(plan.cpuMicrosPerPush, 10, accuracy: 1e-9)
        XCTAssertEqual(plan.pushesPerCore, 100_000, accuracy: 1e-6)
        XCTAssertEqual(plan.cores, 15, "1,000,000 ÷ (100,000 × 0.7) = 14.3, rounded up")
        XCTAssertEqual(plan.inFlight, 40_000, accuracy: 1e-6, "Little's law: 1,000,000/s × 40 ms")
        XCTAssertEqual(plan.connections, 58, "40,000 ÷ (1000 × 0.7) = 57.1, rounded up")
        XCTAssertEqual(plan.hosts, 2, "15 cores at 8 per host")
        XCTAssertEqual(plan.bindingConstraint, .senderCPU)
        XCTAssertEqual(plan.threadsPerHost, 8)
        XCTAssertEqual(plan.connectionsPerHostPlanned, 29)
        XCTAssertTrue(plan.meetsP99, "the measured spread is flat: p99 ≈ the assumed 40 ms")
        XCTAssertEqual(try XCTUnwrap(plan.peakDeliveredSeconds), 10.04, accuracy: 0.01)
        let binding = plan.text.split(separator: "\n").first { $0.hasPrefix("binding ") }
        XCTAssertEqual(
            binding?.split(separator: " ", omittingEmptySubsequences: true).dropFirst().joined(separator: " "),
            "sender CPU"
        )

        var fewConnections = plan.target
        fewConnections.connectionsPerHost = 16
        let connectionBound = FleetPlan(measured: plan.measured, target: fewConnections)
        XCTAssertEqual(connectionBound.hosts, 4, "58 connections at 16 per host")
        XCTAssertEqual(connectionBound.bindingConstraint, .connections)

        var strict = plan.target
        strict.p99Seconds = 0.03
        let latencyBound = FleetPlan(measured: plan.measured, target: strict)
        XCTAssertFalse(latencyBound.meetsP99)
        XCTAssertTrue(latencyBound.text.contains("NOT met"), latencyBound.text)
    }

    /// A profiled scheduler that keeps one push in flight sends at most one a round trip, so
    /// its concurrency, not its CPU, binds: 10,000 in 60 s at 40 ms needs 10 processes of it as
    /// it is (25/s each, at 0.7 headroom), or 10 in flight in one.
    func testASequentialSenderIsSizedByItsConcurrencyNotItsCPU() throws {
        var plan = FleetPlan(
            measured: try measuredRun(),
            target: .init(ratePerSecond: 10_000.0 / 60, peak: (10_000, 60), latencySeconds: 0.04)
        )
        plan.profiledSender = "scheduler"
        plan.senderInFlight = 1
        XCTAssertEqual(try XCTUnwrap(plan.pushesPerProcess), 25, accuracy: 1e-9)
        XCTAssertEqual(plan.processes, 10, "166.7 ÷ (25 × 0.7) = 9.5, rounded up")
        XCTAssertEqual(plan.cores, 1)
        XCTAssertEqual(plan.bindingConstraint, .senderConcurrency)
        XCTAssertEqual(plan.dictionary["binding_constraint"] as? String, "sender concurrency")
        XCTAssertEqual(plan.dictionary["processes"] as? Int, 10)
        XCTAssertTrue(
            plan.text.contains("processes         167 ÷ (25 × 0.7 headroom) = 10 of the sender as it is"),
            plan.text
        )
        XCTAssertTrue(
            plan.text.contains(
                "sender concurrency, not CPU: one process of it keeps 1 in flight, so sends at most 25 pushes/s"
            ),
            plan.text
        )
        plan.senderInFlight = 10_000
        XCTAssertEqual(plan.bindingConstraint, .senderCPU, "250,000/s a process: more than a core sends")
    }

    func testMoreConnectionsArePredictedByStreamsOverLatencyUntilTheWorkersCPU() throws {
        let plan = FleetPlan(measured: try measuredRun(), target: .init(ratePerSecond: 1))
        let two = plan.predictedThroughput(connections: 2)
        XCTAssertEqual(two.pushesPerSecond, 200 / plan.measuredLatencySeconds, accuracy: 1e-6)
        XCTAssertEqual(two.limit, .connections)
        let many = plan.predictedThroughput(connections: 100)
        XCTAssertEqual(many.pushesPerSecond, 100_000, accuracy: 1e-6, "one worker thread at 10 µs per push")
        XCTAssertEqual(many.limit, .senderCPU)
    }
}
