import Basics
import Synchronization
import Transport
import XCTest

@testable import LoadEngine

/// Readers of a run's live figures ask; workers answer at their next turn, and the answers add up.
final class LiveMetricsTests: XCTestCase {
    private static func snapshot(sent: Int, succeeded: Int, cpu: Double) -> LiveSnapshot {
        var snapshot = LiveSnapshot()
        snapshot.counts.sent = sent
        snapshot.counts.succeeded = succeeded
        snapshot.inFlight = sent - succeeded
        snapshot.latency.record(100)
        snapshot.workerCPUSeconds = [cpu]
        return snapshot
    }

    func testAReadBeforeTheRunStartsIsEmpty() {
        let live = LiveMetrics()
        let read = live.read()
        XCTAssertEqual(read.workers, 0)
        XCTAssertEqual(read.counts, OutcomeCounts())
    }

    func testAReadAsksEveryWorkerAndAddsTheirFreshAnswers() {
        let live = LiveMetrics()
        live.begin(workers: 2)
        let done = Atomic<Bool>(false)
        let answering = DispatchGroup()
        for worker in 0..<2 {
            DispatchQueue.global().async(group: answering) {
                var answered = 0
                var turns = 0
                while !done.load(ordering: .relaxed) {
                    turns += 1
                    if let request = live.request(after: answered) {
                        let sent = 10 * (worker + 1) + turns
                        live.answer(
                            Self.snapshot(sent: sent, succeeded: sent - 1, cpu: 0.5),
                            worker: worker,
                            request: request
                        )
                        answered = request
                    }
                    usleep(1_000)
                }
            }
        }
        let first = live.read()
        let second = live.read()
        done.store(true, ordering: .relaxed)
        answering.wait()

        XCTAssertEqual(first.workers, 2)
        XCTAssertEqual(first.counts.sent - first.counts.succeeded, 2, "one in flight on each")
        XCTAssertEqual(first.inFlight, 2)
        XCTAssertGreaterThan(second.counts.sent, first.counts.sent, "the second read asked again")
        XCTAssertEqual(second.latency.totalCount, 2)
        XCTAssertEqual(second.workerCPUSeconds, [0.5, 0.5])
        XCTAssertEqual(second.workersFinished, 0)
    }

    func testAWorkerThatDoesNotAnswerHoldsAReaderAtMostTheAnswerWait() {
        let live = LiveMetrics()
        live.begin(workers: 2)
        live.answer(Self.snapshot(sent: 5, succeeded: 5, cpu: 1), worker: 0, request: 0, finished: true)
        let began = monotonicNanos()
        let read = live.read()
        let waited = monotonicNanos() - began
        XCTAssertEqual(read.counts.sent, 5, "the finished worker's last answer counts")
        XCTAssertEqual(read.workersFinished, 1)
        XCTAssertGreaterThanOrEqual(waited, LiveMetrics.answerWaitNanos)
        XCTAssertLessThan(waited, 10 * LiveMetrics.answerWaitNanos)
    }

    func testFinishedWorkersAreNotWaitedFor() {
        let live = LiveMetrics()
        live.begin(workers: 2)
        for worker in 0..<2 {
            live.answer(Self.snapshot(sent: 3, succeeded: 3, cpu: 0.25), worker: worker, request: 0, finished: true)
        }
        let began = monotonicNanos()
        let read = live.read()
        XCTAssertLessThan(monotonicNanos() - began, LiveMetrics.answerWaitNanos)
        XCTAssertEqual(read.counts.sent, 6)
        XCTAssertEqual(read.workersFinished, 2)
    }

    func testThePushesDueByAnInstantFollowTheRateProfile() throws {
        let ramp = try RateProfile(points: [(0, 0), (10, 100)])
        XCTAssertEqual(ramp.pushesDue(bySeconds: 0), 1, "push 0 is due at the start")
        XCTAssertEqual(ramp.pushesDue(bySeconds: 10), 501, "the integral of a 0-to-100/s ramp over 10 s is 500")
        XCTAssertEqual(ramp.pushesDue(bySeconds: 12), 701, "then 100/s")
        for index in [1, 57, 499, 650] {
            let seconds = try XCTUnwrap(ramp.seconds(ofPush: index))
            XCTAssertEqual(ramp.pushesDue(bySeconds: seconds + 1e-9), index + 1, "push \(index) is due at its time")
        }
    }
}
