import Histogram
import XCTest

@testable import LoadEngine

/// The workers' seconds merge into one exact series, and a second is final only when every
/// worker has handed it over.
final class RunTimelineTests: XCTestCase {
    private func second(_ index: Int, sent: Int, interval: Double = 1) -> SecondSample {
        var sample = SecondSample(second: index)
        sample.counts.sent = sent
        sample.counts.succeeded = sent
        sample.intervalSeconds = interval
        return sample
    }

    private func latencies(_ values: [UInt64]) -> Histogram<UInt64> {
        var histogram = Histogram.latency(digits: .two)
        for value in values { histogram.record(value) }
        return histogram
    }

    func testSecondsMergeExactlyOnceEveryWorkerClosedThem() {
        let timeline = RunTimeline(workers: 2)
        timeline.add(second(0, sent: 3), latency: latencies([100, 100, 100]), worker: 0)
        timeline.add(second(1, sent: 1), latency: latencies([100]), worker: 0)
        XCTAssertEqual(timeline.seconds.count, 0, "worker 1 has not closed second 0")

        timeline.add(second(0, sent: 7), latency: latencies(Array(repeating: 900, count: 7)), worker: 1)
        let merged = timeline.seconds
        XCTAssertEqual(merged.count, 1)
        XCTAssertEqual(merged[0].counts.sent, 10)
        let slow = latencies([900])
        XCTAssertEqual(merged[0].p50Us, slow.valueAtPercentile(50), "7 of 10 answers took 900 µs: the merged median")
        XCTAssertEqual(merged[0].maxUs, slow.max)

        timeline.finish(worker: 1)
        timeline.add(second(2, sent: 2, interval: 0.4), latency: latencies([50, 50]), worker: 0)
        timeline.finish(worker: 0)
        XCTAssertEqual(timeline.seconds.map(\.counts.sent), [10, 1, 2])
        XCTAssertEqual(timeline.seconds.last?.intervalSeconds, 0.4)
        XCTAssertEqual(timeline.progress.lastSecond?.second, 2)
    }

    func testProgressAddsTheWorkersPublishedTotals() {
        let timeline = RunTimeline(workers: 3)
        var counts = OutcomeCounts()
        counts.sent = 5
        counts.rejected = 2
        for worker in 0..<3 { timeline.publish(counts, worker: worker) }
        XCTAssertEqual(timeline.progress.counts.sent, 15)
        XCTAssertEqual(timeline.progress.counts.rejected, 6)
        XCTAssertNil(timeline.progress.lastSecond)
    }

    func testSharesSpreadTheRemainderOverTheFirstWorkers() {
        XCTAssertEqual((0..<3).map { LoadWorker.share(of: 10, worker: $0, of: 3) }, [4, 3, 3])
        XCTAssertEqual((0..<4).map { LoadWorker.share(of: 2, worker: $0, of: 4) }, [1, 1, 0, 0])
    }

    func testPacingLabelsSayHowLoadWasOffered() throws {
        XCTAssertEqual(Pacing.closedLoop.label, "closed loop")
        XCTAssertEqual(try Pacing.constantRate(perSecond: 1000).label, "open loop at 1000/s")
        XCTAssertEqual(Pacing.scenarioTime(scale: 60).simulatedSecondsPerSecond, 60)
        XCTAssertFalse(Pacing.closedLoop.isOpenLoop)
    }
}
