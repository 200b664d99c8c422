import Foundation
import LoadEngine
import MockAPNs
import MockFaults
import Reports
import SenderDoctor
import TestSupport
import Transport
import Workload
import XCTest

/// The sender doctor against senders whose mistakes are known: PushBench's own engine making
/// each `--practice` on purpose, over real sockets to a recording mock, and a careful run.
final class SenderDoctorTests: XCTestCase {
    /// What one run against a recording mock gave: the doctor's verdict and the run's result.
    private struct Diagnosis {
        var practices: SenderPractices
        var result: RunResult
        var found: [String] { practices.findings.map(\.practice) }
    }

    /// Runs `requests` pushes of a 100-activity football scenario with `practices` against a
    /// mock that records them, and asks the doctor.
    private func diagnose(
        _ practices: [SenderPractice],
        requests: Int = 800,
        threads: Int = 1,
        faults: FaultPlan = .none,
        retries: RetryPolicy = .none,
        pacing: Pacing? = nil
    ) throws -> Diagnosis {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let recorder = try PushRecorder(path: directory.file("traffic.csv"))
        let mock = try MockFixture(faults: faults, recorder: recorder)
        var load = try mock.load(requests: requests, activities: 100, transport: .nghttp2)
        load.threads = threads
        load.retryPolicy = retries
        if let pacing { load.pacing = pacing }
        try SenderPractice.apply(practices, to: &load)
        let result = try LoadTest.run(load, tokens: mock.tokens())
        try recorder.close()
        let doctor = SenderPractices(
            records: try TrafficFile.table(recorder.path),
            streamsAdvertised: MockAPNsConfiguration().maxConcurrentStreams,
            connectionsAccepted: mock.server.stats.snapshot().connectionsAccepted
        )
        return Diagnosis(practices: doctor, result: result)
    }

    func testACarefulSenderGetsACleanReport() throws {
        let diagnosis = try diagnose([])
        XCTAssertEqual(diagnosis.result.counts.succeeded, 800)
        XCTAssertEqual(diagnosis.found, [], "\(diagnosis.practices.findings)")
        XCTAssertEqual(diagnosis.practices.figures.providerTokens, 1)
        XCTAssertGreaterThan(diagnosis.practices.figures.streamsOpenMax ?? 0, 1, "the engine multiplexes")
    }

    func testACarefulRetrierThatWaitsAsAskedIsNotBlamed() throws {
        let faults = FaultPlan(errorRates: [.serviceUnavailable: 0.2], retryAfterSeconds: 1)
        let diagnosis = try diagnose([], requests: 300, faults: faults, retries: RetryPolicy(maxRetries: 2))
        XCTAssertGreaterThan(diagnosis.practices.figures.retriesAfterThrottle, 20)
        XCTAssertEqual(diagnosis.practices.figures.retriesSoonerThanAsked, 0)
        XCTAssertEqual(diagnosis.found, [], "\(diagnosis.practices.findings)")
    }

    func testTheDoctorNamesEachPracticeTheEngineMakes() throws {
        let cases: [(SenderPractice, Int, Int, FaultPlan)] = [
            (.perWorkerTokens, 800, 2, .none),
            (.tokenPerConnection, 800, 1, .none),
            (.tokenPerPush, 300, 1, .none),
            (.refresh(seconds: 0.05), 800, 1, .none),
            (.clockSkew(seconds: -600), 300, 1, .none),
            (.connectionPerPush, 150, 1, .none),
            (.oneStream, 800, 1, .none),
            (.retryWithoutBackoff, 300, 1, FaultPlan(errorRates: [.serviceUnavailable: 0.2], retryAfterSeconds: 1)),
            (.allPriority10, 800, 1, .none),
        ]
        for (practice, requests, threads, faults) in cases {
            // Two workers' tokens are side by side only while both send: in closed loop on a
            // loaded machine, one worker can finish its share before the other's connection is
            // up, so the two-worker case is paced over most of a second.
            let pacing: Pacing? = threads > 1 ? try .constantRate(perSecond: 1000) : nil
            let diagnosis = try diagnose(
                [practice],
                requests: requests,
                threads: threads,
                faults: faults,
                pacing: pacing
            )
            XCTAssertTrue(diagnosis.found.contains(practice.name), "\(practice): \(diagnosis.practices.findings)")
            // A token replaced every 50 ms still has pushes queued behind a connection's streams
            // when the next one starts, so the mock may rightly see two tokens side by side. Paced
            // at 1,000 a second, a push can be answered before the next one leaves: a mock that
            // answers that fast rightly sees one stream at a time.
            let alongside: Set<String> =
                practice.name == "refresh"
                ? ["per-worker-tokens", "token-per-connection"] : threads > 1 ? ["one-stream"] : []
            XCTAssertTrue(
                Set(diagnosis.found).subtracting([practice.name]).isSubset(of: alongside),
                "\(practice): \(diagnosis.practices.findings)"
            )
            XCTAssertTrue(diagnosis.result.counts.isBalanced, "\(practice)")
        }
    }

    func testAPracticeShowsItsCostInTheRun() throws {
        let diagnosis = try diagnose([.tokenPerPush], requests: 300)
        let refused = diagnosis.result.rejectedByReason["TooManyProviderTokenUpdates"] ?? 0
        XCTAssertGreaterThan(refused, 200, "each connection adopts one token; every other is refused")
        let finding = try XCTUnwrap(diagnosis.practices.findings.first)
        XCTAssertTrue(finding.cost.contains("\(refused.formatted()) ("), finding.cost)
        XCTAssertEqual(diagnosis.result.configuration.practices, [.tokenPerPush])
        XCTAssertEqual(diagnosis.result.configuration.tokenPolicy, .perRequest)
    }
}
