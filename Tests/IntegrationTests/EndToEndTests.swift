import Foundation
import Pages
import Wire
import Workload
import XCTest

@testable import LoadEngine
@testable import MockAPNs
@testable import Reports

/// The real libcurl client against the real mock, over TLS and HTTP/2 on loopback.
final class EndToEndTests: XCTestCase {
    func testTwoThousandPushesAllSucceedAndBothSidesAgree() throws {
        let mock = try MockFixture()
        let result = try LoadTest.run(mock.load(requests: 2000), tokens: mock.tokens())

        XCTAssertEqual(result.counts.sent, 2000)
        XCTAssertEqual(result.counts.succeeded, 2000)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(
            result.counts.sent,
            result.counts.succeeded + result.counts.rejected + result.counts.errored + result.counts.timedOut
        )
        XCTAssertEqual(result.latency.totalCount, 2000)
        XCTAssertEqual(result.apnsIDMismatches, 0, "the mock echoes every apns-id")
        XCTAssertNil(result.recoveries, "libcurl recovers inside and does not say")
        XCTAssertGreaterThan(result.perConnection.count, 1, "requests are spread over several HTTP/2 connections")
        XCTAssertEqual(result.perConnection.values.reduce(0, +), 2000)
        XCTAssertEqual(result.timeline.map(\.counts.sent).reduce(0, +), 2000)

        let stats = mock.server.stats.snapshot()
        XCTAssertEqual(stats.pushes, 2000)
        XCTAssertEqual(stats.accepted, result.counts.succeeded)
        XCTAssertEqual(stats.rejectedByReason, [:])
        XCTAssertEqual(stats.connectionsAccepted, result.perConnection.count)
        XCTAssertEqual(mock.server.verifier.fullChecks, 1, "one token for the run, verified once")
    }

    func testTheMockRejectsExactlyTheTokensTheWorkloadPredicts() throws {
        let hygiene = try TokenHygiene(unregisteredFraction: 0.1, otherTopicFraction: 0.05)
        let mock = try MockFixture(tokenHygiene: hygiene)
        let configuration = try mock.load(requests: 2000)
        let result = try LoadTest.run(configuration, tokens: mock.tokens())

        let source = ScenarioPushSource(scenario: configuration.scenario)
        var predicted: [String: Int] = [:]
        for event in try ScenarioStream(configuration.scenario).prefix(2000) {
            switch hygiene.fate(of: source.tokens(for: event), at: event.tokenIndex) {
            case .unregistered: predicted["Unregistered", default: 0] += 1
            case .otherTopic: predicted["DeviceTokenNotForTopic", default: 0] += 1
            case .valid, .expires: break
            }
        }
        XCTAssertGreaterThan(predicted["Unregistered"] ?? 0, 100)
        XCTAssertEqual(result.rejectedByReason, predicted)
        XCTAssertEqual(result.counts.succeeded, 2000 - predicted.values.reduce(0, +))
        XCTAssertTrue(result.counts.isBalanced)
    }

    func testTokensFromAnotherKeyAreRejectedAsInvalidProviderToken() throws {
        let mock = try MockFixture()
        let result = try LoadTest.run(mock.load(requests: 300), tokens: mock.tokens(signingWith: ES256PrivateKey()))

        XCTAssertEqual(result.counts.rejected, 300)
        XCTAssertEqual(result.counts.succeeded, 0)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.rejectedByReason, ["InvalidProviderToken": 300])
        XCTAssertEqual(mock.server.stats.snapshot().rejectedByReason, ["InvalidProviderToken": 300])
    }

    func testSigningEveryPushGetsEachConnectionThrottledAfterItsFirstToken() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: 200, connections: 2, streams: 10)
        load.tokenPolicy = .perRequest
        let result = try LoadTest.run(load, tokens: mock.tokens())

        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.counts.succeeded, result.perConnection.count, "one adopted token per connection")
        XCTAssertEqual(result.rejectedByReason, ["TooManyProviderTokenUpdates": 200 - result.counts.succeeded])
        XCTAssertEqual(mock.server.verifier.fullChecks, 200, "every push carried a token never seen before")
    }

    func testAnUnreachableEndpointIsCountedAsErrorsNotLost() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: 50, connections: 2, streams: 10)
        mock.server.shutdown()
        load.transport.requestTimeout = .seconds(5)
        load.reconnectBackoff = ReconnectBackoff(base: .milliseconds(10), cap: .milliseconds(80))
        let result = try LoadTest.run(load, tokens: mock.tokens())
        XCTAssertEqual(result.counts.errored, result.counts.sent)
        XCTAssertTrue(result.gaveUpOnTarget, "closed loop without --duration gives up on a target that is gone")
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(
            result.erroredByKind,
            ["connect_refused": result.counts.sent],
            "the same class as the nghttp2 transport's"
        )
        XCTAssertTrue(
            result.erroredSamples["connect_refused"]?.hasPrefix("curl 7:") ?? false,
            "\(result.erroredSamples)"
        )
    }

    func testAStoppedRunEndsEarlyWithBalancedBooks() throws {
        let mock = try MockFixture()
        let stop = StopFlag()
        let result = try LoadTest.run(mock.load(requests: 1_000_000), tokens: mock.tokens(), stop: stop) { progress in
            if progress.counts.completed > 200 { stop.set() }
        }
        XCTAssertTrue(result.interrupted)
        XCTAssertLessThan(result.counts.sent, 1_000_000)
        XCTAssertGreaterThan(result.counts.succeeded, 200)
        XCTAssertTrue(result.counts.isBalanced)
    }

    func testReportFilesCarryTheRunAndRoundTripTheHistogram() throws {
        let mock = try MockFixture()
        let result = try LoadTest.run(mock.load(requests: 500), tokens: mock.tokens())
        let stats = mock.server.stats.snapshot()
        let context = RunContext(
            runID: "test-run",
            commandLine: "pushbench run",
            targetDescription: "embedded mock",
            serverCounts: ServerCounts(
                pushes: stats.pushes,
                accepted: stats.accepted,
                rejectedByReason: stats.rejectedByReason,
                connections: stats.connectionsAccepted
            )
        )
        let root = NSTemporaryDirectory() + "pushbench-reports-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }

        let written = try ReportWriter.write(result, context: context, root: root)
        let files = try FileManager.default.contentsOfDirectory(atPath: written.directory).sorted()
        XCTAssertEqual(
            files,
            [
                "connections.csv", "latency.hgrm", "latency_percentiles.csv", "outcomes.csv", "report.html",
                "summary.json",
                "timeseries.csv",
            ]
        )

        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: written.directory + "/summary.json"))
            ) as? [String: Any]
        )
        for key in [
            "schema_version", "mode", "counts", "rejected_by_reason", "throughput_per_s", "latency_us", "duration_s",
            "parameters", "machine", "latency_histogram_us",
        ] {
            XCTAssertNotNil(summary[key], "summary.json lacks \(key)")
        }
        XCTAssertEqual(summary["mode"] as? String, "closed_loop")
        XCTAssertEqual(
            summary["counts"] as? [String: Int],
            ["sent": 500, "succeeded": 500, "rejected": 0, "errored": 0, "timed_out": 0]
        )
        XCTAssertEqual(
            Set((summary["latency_us"] as? [String: Int])?.keys ?? [:].keys),
            ["p50", "p90", "p95", "p99", "p99_9", "max"]
        )
        XCTAssertEqual((summary["server_counts"] as? [String: Any])?["matches_client"] as? Bool, true)

        // The summary restores the run: histograms, the series and every count come back exactly.
        let summaryBack = try RunSummary.read(contentsOf: written.directory)
        let restored = try summaryBack.runResult()
        XCTAssertEqual(restored.latency.buckets, result.latency.buckets)
        XCTAssertEqual(restored.latency.totalCount, result.latency.totalCount)
        for percentile in [50.0, 99.9, 100] {
            let original = result.latency.valueAtPercentile(percentile)
            let restoredValue = restored.latency.valueAtPercentile(percentile)
            XCTAssertTrue(result.latency.valuesAreEquivalent(original, restoredValue), "p\(percentile)")
        }
        XCTAssertEqual(restored.timeline.count, result.timeline.count)
        for (back, original) in zip(restored.timeline, result.timeline) {
            // Foundation's JSON may print a double's last digit differently.
            XCTAssertEqual(back.intervalSeconds, original.intervalSeconds, accuracy: 1e-9)
            var same = back
            same.intervalSeconds = original.intervalSeconds
            XCTAssertEqual(same, original)
        }
        XCTAssertEqual(restored.timeline.first?.latencyBuckets, [], "an unsharded run keeps no buckets per second")
        XCTAssertEqual(restored.counts, result.counts)
        XCTAssertEqual(restored.perConnection, result.perConnection)
        XCTAssertEqual(restored.stageTimes, result.stageTimes)
        XCTAssertEqual(restored.configuration.scenario, result.configuration.scenario)
        XCTAssertEqual(restored.configuration.pacing, result.configuration.pacing)
        XCTAssertEqual(summaryBack.runContext.serverCounts, context.serverCounts)
        // Written again from what was read, the summary is the same file.
        XCTAssertEqual(
            try summaryBack.encoded(),
            try Data(contentsOf: URL(fileURLWithPath: written.directory + "/summary.json"))
        )

        let timeseries = try String(contentsOfFile: written.directory + "/timeseries.csv", encoding: .utf8)
        XCTAssertTrue(
            timeseries.hasPrefix(
                "start_s,interval_s,sent,succeeded,rejected,errored,timed_out,completed_per_s,succeeded_per_s,p50_us,p99_us,max_us\r\n"
            )
        )
        let percentiles = try String(contentsOfFile: written.directory + "/latency_percentiles.csv", encoding: .utf8)
        XCTAssertTrue(
            percentiles.hasPrefix("percentile,latency_us,count_at_or_below,one_over_one_minus_percentile\r\n")
        )
        XCTAssertTrue(percentiles.contains(",500,"), "the spectrum ends at the total count")

        let html = try String(contentsOfFile: written.htmlPath, encoding: .utf8)
        XCTAssertTrue(html.contains("<svg"))
        XCTAssertTrue(html.contains("the books balance"))
        for external in ["<script", "<link", "url(", "@import", "src="] {
            XCTAssertFalse(html.contains(external), "report.html must be self-contained, found \(external)")
        }
    }

    func testCSVQuotesFieldsPerRFC4180() {
        var table = CSVTable(columns: ["reason", "count"])
        table.append(["curl 7: Couldn't connect, \"refused\"", "3"])
        XCTAssertEqual(table.text, "reason,count\r\n\"curl 7: Couldn't connect, \"\"refused\"\"\",3\r\n")
    }
}
