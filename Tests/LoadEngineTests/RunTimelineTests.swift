import Histogram
import Transport
import XCTest

@testable import LoadEngine

/// The workers' intervals merge into one exact series at a resolution that follows the run's
/// length, and progress reports only what every worker has handed over.
final class RunTimelineTests: XCTestCase {
    private func latencies(_ values: [UInt64]) -> Histogram<UInt64> {
        var histogram = Histogram.latency(digits: .two)
        for value in values { histogram.record(value) }
        return histogram
    }

    private func answered(_ count: Int) -> OutcomeCounts {
        var counts = OutcomeCounts()
        counts.sent = count
        counts.succeeded = count
        return counts
    }

    private let ms: UInt64 = 1_000_000

    func testIntervalsMergeExactlyAndProgressWaitsForEveryWorker() {
        let timeline = RunTimeline(workers: 2)
        XCTAssertEqual(timeline.resolutionNanos, 10 * ms, "a run starts at the finest resolution")
        let fast = latencies([100, 100, 100])
        timeline.add(answered(3), latency: fast, fromNanos: 0, toNanos: 10 * ms, nextNanos: 10 * ms, worker: 0)
        XCTAssertNil(timeline.recentPercentiles, "worker 1 has handed nothing over")
        let slow = latencies(Array(repeating: 900, count: 7))
        timeline.add(answered(7), latency: slow, fromNanos: 0, toNanos: 10 * ms, nextNanos: 10 * ms, worker: 1)
        XCTAssertEqual(timeline.recentPercentiles?.p50Us, slow.valueAtPercentile(50))

        timeline.add(
            answered(2),
            latency: latencies([50, 50]),
            fromNanos: 20 * ms,
            toNanos: 24 * ms,
            nextNanos: .max,
            worker: 0
        )
        timeline.finish(worker: 0)
        timeline.finish(worker: 1)
        let (samples, resolution) = timeline.samples
        XCTAssertEqual(resolution, 0.01)
        XCTAssertEqual(samples.map(\.counts.sent), [10, 0, 2], "an interval nothing ended in is still a point")
        XCTAssertEqual(samples[0].p50Us, slow.valueAtPercentile(50), "7 of 10 answers took 900 µs: the merged median")
        XCTAssertEqual(samples[0].maxUs, slow.max)
        XCTAssertEqual(samples[2].intervalSeconds, 0.004, accuracy: 1e-9, "the last interval is partial")
    }

    /// A run that outgrows 250 intervals coarsens to the next step, adding neighbours up, so a
    /// run of any length has at least 50 points.
    func testALongRunCoarsensAndKeepsAtLeastFiftyPoints() {
        let timeline = RunTimeline(workers: 1)
        var from: UInt64 = 0
        var latencyOfInterval: [UInt64] = []
        while from < 3_000 * ms {
            let resolution = timeline.resolutionNanos
            let value = 100 + from / ms
            latencyOfInterval.append(value)
            timeline.add(
                answered(1),
                latency: latencies([value]),
                fromNanos: from,
                toNanos: from + resolution,
                nextNanos: from + resolution,
                worker: 0
            )
            let next = timeline.resolutionNanos
            from = (from + resolution) / next * next  // as a worker opens its next interval
        }
        timeline.finish(worker: 0)
        let (samples, resolution) = timeline.samples
        XCTAssertEqual(resolution, 0.02, "3 s is more than 250 intervals of 10 ms, fewer than 250 of 20 ms")
        XCTAssertEqual(samples.count, 150)
        XCTAssertGreaterThanOrEqual(samples.count, 50)
        XCTAssertEqual(samples.map(\.counts.sent).reduce(0, +), latencyOfInterval.count, "nothing lost on the way")
        XCTAssertEqual(samples[0].counts.sent, 2, "two 10 ms intervals in the first 20 ms one")
        XCTAssertEqual(samples[0].maxUs, latencies([110]).max, "its histogram holds both, not an average")
        XCTAssertEqual(samples[0].p50Us, latencies([100]).max)
    }

    func testASingleShortIntervalIsStillAPoint() {
        let timeline = RunTimeline(workers: 1)
        timeline.add(answered(5), latency: latencies([100]), fromNanos: 0, toNanos: 3 * ms, nextNanos: .max, worker: 0)
        timeline.finish(worker: 0)
        XCTAssertEqual(timeline.samples.samples.count, 1)
        XCTAssertEqual(timeline.samples.samples[0].intervalSeconds, 0.003, accuracy: 1e-9)
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

    /// A worker's interval holds only what was answered in it: the histogram it hands over starts
    /// empty again for the next one (fails when the handed-over latencies are kept).
    func testEachIntervalOfAWorkerHoldsOnlyItsOwnLatencies() {
        let timeline = RunTimeline(workers: 1)
        var metrics = RunMetrics(startNanos: 0, timeline: timeline, worker: 0)
        func answer(sentAt sent: UInt64, after latency: UInt64) {
            _ = metrics.recordSent(now: sent, intendedAt: sent)
            let completion = PushCompletion(
                tag: 0,
                intendedAt: sent,
                outcome: .response(status: 200, body: []),
                apnsIDEchoed: true,
                localPort: 1
            )
            metrics.record(completion, now: sent + latency, warmup: false)
        }
        for _ in 0..<10 { answer(sentAt: 1 * ms, after: 5 * ms) }
        for _ in 0..<10 { answer(sentAt: 12 * ms, after: 1 * ms / 10) }
        metrics.finish(now: 15 * ms)

        let samples = timeline.samples.samples
        XCTAssertEqual(samples.count, 2)
        XCTAssertEqual(samples.map(\.counts.succeeded), [10, 10])
        XCTAssertEqual(samples[0].p99Us, latencies([5_000]).valueAtPercentile(99))
        XCTAssertEqual(
            samples[1].p99Us,
            latencies([100]).valueAtPercentile(99),
            "the first interval's answers are gone"
        )
    }
}
