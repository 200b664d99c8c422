import Basics
import LoadEngine
import MockAPNs
import MockFaults
import Workload
import XCTest

@testable import Transport

/// The nghttp2 transport against the mock over real TLS sockets: the same answers and books as
/// the libcurl one, and every way a request can end.
final class NGHTTP2TransportTests: XCTestCase {
    func testAWholeScenarioFromTwoWorkersSucceedsAndBothSidesAgree() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: nil, activities: 30, transport: .nghttp2)
        load.threads = 2
        let expected = try ScenarioStream(load.scenario).reduce(0) { count, _ in count + 1 }
        let result = try LoadTest.run(load, tokens: mock.tokens())

        XCTAssertEqual(result.counts.succeeded, expected)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.apnsIDMismatches, 0, "the mock echoes every apns-id, and we read it")
        XCTAssertEqual(result.perConnection.count, 4)
        XCTAssertEqual(result.perConnection.values.reduce(0, +), expected)
        let stats = mock.server.stats.snapshot()
        XCTAssertEqual(stats.accepted, expected)
        XCTAssertEqual(stats.liveActivityWouldDrop, [:], "a device would use every push of the scenario")
        XCTAssertEqual(stats.connectionsAccepted, 4)
        XCTAssertEqual(mock.server.verifier.fullChecks, 1, "one token for the run, verified once")
    }

    func testRejectionsCarryTheirReasonFromTheJSONBody() throws {
        let hygiene = try TokenHygiene(unregisteredFraction: 0.1, otherTopicFraction: 0.05)
        let mock = try MockFixture(tokenHygiene: hygiene)
        let load = try mock.load(requests: 1500, transport: .nghttp2)
        let result = try LoadTest.run(load, tokens: mock.tokens())

        let stats = mock.server.stats.snapshot()
        XCTAssertGreaterThan(result.rejectedByReason["Unregistered"] ?? 0, 50)
        XCTAssertEqual(result.rejectedByReason, stats.rejectedByReason)
        XCTAssertEqual(result.counts.succeeded, stats.accepted)
        XCTAssertTrue(result.counts.isBalanced)
    }

    func testAnUnreachableEndpointIsCountedAsErrorsNotLost() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: 40, connections: 2, streams: 10, transport: .nghttp2)
        load.reconnectBackoff = ReconnectBackoff(base: .milliseconds(10), cap: .milliseconds(80))
        mock.server.shutdown()
        let result = try LoadTest.run(load, tokens: mock.tokens())
        XCTAssertEqual(result.counts.errored, result.counts.sent)
        XCTAssertLessThan(result.counts.sent, 40, "closed loop without --duration gives up on a target that is gone")
        XCTAssertTrue(result.gaveUpOnTarget)
        XCTAssertTrue(result.noConnectionWorked)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.erroredByKind, ["connect_refused": result.counts.sent])
        XCTAssertTrue(result.erroredSamples["connect_refused"]?.contains("cannot connect") ?? false)
    }

    func testAnswersThatNeverComeTimeOutAndTheStreamsAreCancelled() throws {
        // Nothing is answered in the last 0.9 s of every second: requests sent then outlive a
        // 300 ms deadline.
        let mock = try MockFixture(
            faults: FaultPlan(latency: .fixed(micros: 1000), stall: (seconds: 0.9, everySeconds: 1))
        )
        var load = try mock.load(requests: 300, connections: 1, streams: 20, transport: .nghttp2)
        load.transport.requestTimeout = .milliseconds(300)
        // The first 0.1 s of the mock's life is not stalled; a mock that starts fast would answer
        // all 300 within it.
        Thread.sleep(forTimeInterval: 0.2)
        let result = try LoadTest.run(load, tokens: mock.tokens())

        XCTAssertGreaterThan(result.counts.timedOut, 0)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.counts.sent, 300)
        XCTAssertLessThan(result.latency.max, 400_000, "no answer is counted after its deadline")
    }

    func testAServerThatGoesAwayMidRunLeavesBalancedBooks() throws {
        let mock = try MockFixture()
        var load = try mock.load(requests: 3000, connections: 2, streams: 20, transport: .nghttp2)
        // Paced, so the run outlasts the first progress reports against a mock of any speed.
        load.pacing = try .constantRate(perSecond: 5000)
        let result = try LoadTest.run(
            load,
            tokens: mock.tokens(),
            progress: { progress in
                if progress.counts.completed > 500 { mock.server.shutdown() }
            }
        )
        XCTAssertGreaterThan(result.counts.succeeded, 500)
        XCTAssertGreaterThan(result.counts.errored, 0, "requests after the shutdown fail")
        XCTAssertTrue(result.counts.isBalanced)
    }

    func testAStreamLimitThatDropsToOneIsHonoured() throws {
        let hygiene = try TokenHygiene(unregisteredFraction: 0.2)
        let mock = try MockFixture(tokenHygiene: hygiene, dropStreamsAfterRejection: true)
        let load = try mock.load(requests: 2000, connections: 1, streams: 100, transport: .nghttp2)
        let result = try LoadTest.run(load, tokens: mock.tokens())
        XCTAssertEqual(result.counts.succeeded + result.counts.rejected, 2000, "\(result.erroredSamples)")
        XCTAssertEqual(result.counts.errored, 0, "nghttp2 held requests beyond the limit instead of failing them")
        XCTAssertGreaterThanOrEqual(mock.server.stats.snapshot().pushes, 2000)
    }

    func testRetryAfterAndTheStatusAreReadFromTheAnswersHeaders() {
        let slot = StreamSlot()
        func header(_ name: String, _ value: String) {
            Array(name.utf8).withUnsafeBytes { name in
                Array(value.utf8).withUnsafeBytes { value in slot.header(name: name, value: value) }
            }
        }
        header(":status", "429")
        header("retry-after", "7")
        let completion = slot.completion(localPort: 1)
        XCTAssertEqual(completion.outcome, .response(status: 429, body: []))
        XCTAssertEqual(completion.retryAfterSeconds, 7)
    }

    /// Answers read together come back as one batch at one instant, and only the last of a batch
    /// ends it: the engine reads the clock once after it, not after every answer.
    func testAnswersReadTogetherEndOneBatchAtOneInstant() throws {
        let client = try NGHTTP2PushClient.inMemory(streamsPerConnection: 10)
        let headers = HeaderBlock(lines: ["apns-push-type: liveactivity", "apns-topic: com.example.app"])
        let path = Array("/3/device/\(String(repeating: "ab", count: 32))".utf8)
        for tag in 0..<10 {
            try client.submit(
                tag: tag,
                intendedAt: monotonicNanos(),
                path: path,
                apnsID: (UInt64(tag), 1),
                headers: headers,
                body: Array(#"{"aps":{}}"#.utf8)
            )
        }
        var batches: [[PushCompletion]] = []
        for _ in 0..<20 where batches.joined().count < 10 {
            client.serveMemoryPeers()
            var batch: [PushCompletion] = []
            client.perform { batch.append($0) }
            if !batch.isEmpty { batches.append(batch) }
        }
        XCTAssertEqual(batches.joined().count, 10)
        XCTAssertTrue(batches.contains { $0.count > 1 }, "the peer answered several pushes in one read")
        for batch in batches {
            XCTAssertEqual(batch.map(\.endsBatch), Array(repeating: false, count: batch.count - 1) + [true])
            XCTAssertEqual(Set(batch.map(\.answeredAt)).count, 1, "one instant for the whole batch")
            XCTAssertNotNil(batch[0].answeredAt)
        }
    }

    /// A connection's open streams: each leaves once, whichever order they close in, handed
    /// back to the caller; a slot that is not there (closed already, or another connection's)
    /// is refused, and the rest keep their places.
    func testOpenStreamsLetEachSlotLeaveOnceInAnyOrder() {
        var open = OpenStreams()
        let slots = (1...4).map { id in
            let slot = StreamSlot()
            slot.streamID = Int32(2 * id - 1)
            return slot
        }
        for slot in slots.reversed() { open.insert(slot) }
        XCTAssertEqual(open.inStreamOrder.map(\.streamID), [1, 3, 5, 7])
        XCTAssertTrue(open.remove(slots[2]) === slots[2])
        XCTAssertNil(open.remove(slots[2]))
        var another = OpenStreams()
        XCTAssertNil(another.remove(slots[0]))
        XCTAssertTrue(open.remove(slots[3]) === slots[3])
        XCTAssertEqual(open.count, 2)
        XCTAssertEqual(Set(open.all.map(\.streamID)), [1, 3])
        open.removeAll()
        XCTAssertTrue(open.isEmpty)
        XCTAssertNil(open.remove(slots[0]))
    }
}

/// GOAWAY storms: the mock sends every connection away after a few answers, with a JSON reason;
/// the sender reconnects and resends what was refused, and the books stay exact on both sides.
final class GoAwayTests: XCTestCase {
    private func runThroughGoAways(_ transport: TransportKind) throws -> (RunResult, MockStats.Snapshot) {
        let mock = try MockFixture(faults: FaultPlan(goAwayAfter: 50))
        let load = try mock.load(requests: 1500, connections: 2, streams: 20, transport: transport)
        let result = try LoadTest.run(load, tokens: mock.tokens())
        return (result, mock.server.stats.snapshot())
    }

    func testTheNGHTTP2TransportReconnectsAndLosesNothing() throws {
        let (result, stats) = try runThroughGoAways(.nghttp2)
        XCTAssertEqual(result.counts.succeeded, 1500, "\(result.erroredByKind)")
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertGreaterThanOrEqual(stats.goAwaysSent, 20)
        XCTAssertGreaterThanOrEqual(result.recoveries?.reconnections ?? 0, stats.goAwaysSent - 2)
        XCTAssertEqual(stats.pushes, 1500, "every push the mock answered reached the client")
    }

    func testTheCurlTransportKeepsItsBooksBalanced() throws {
        let (result, stats) = try runThroughGoAways(.curl)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.counts.sent, 1500)
        XCTAssertGreaterThanOrEqual(stats.goAwaysSent, 20)
        // The mock closes a connection a second after its GOAWAY. On a busy machine libcurl may
        // not have finished with it by then, and it fails every transfer of a closed connection,
        // even one whose answer it had read in the same pass (as with resets, below): such pushes
        // are accepted by the mock and errored for the sender, never the other way round.
        XCTAssertGreaterThanOrEqual(stats.accepted, result.counts.succeeded, "\(result.erroredByKind)")
        XCTAssertLessThanOrEqual(stats.accepted - result.counts.succeeded, result.counts.errored)
    }
}

/// Connection resets: the mock drops every connection after a few answers, with no GOAWAY and the
/// streams still open never answered. The sender counts those pushes lost (or sends them again),
/// reconnects, and its books still balance; the mock's differ only by answers the reset destroyed
/// on the wire, each of them one of the sender's errors.
final class ConnectionResetTests: XCTestCase {
    private func runThroughResets(
        _ transport: TransportKind,
        retries: Int
    ) throws -> (RunResult, MockStats.Snapshot) {
        // Answers wait 5 ms, so every reset finds streams open and unanswered, however the
        // client's sends and the mock's reads happen to line up on a busy machine.
        let mock = try MockFixture(faults: FaultPlan(latency: .fixed(micros: 5000), resetAfter: 100))
        var load = try mock.load(requests: 1500, connections: 2, streams: 20, transport: transport)
        load.retryPolicy = RetryPolicy(maxRetries: retries, base: .milliseconds(1))
        let result = try LoadTest.run(load, tokens: mock.tokens())
        return (result, mock.server.stats.snapshot())
    }

    func testTheNGHTTP2TransportCountsThePushesAResetLost() throws {
        let (result, stats) = try runThroughResets(.nghttp2, retries: 0)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.counts.sent, 1500)
        XCTAssertGreaterThanOrEqual(stats.connectionResets, 5)
        XCTAssertGreaterThanOrEqual(result.recoveries?.reconnections ?? 0, stats.connectionResets - 2)
        XCTAssertGreaterThan(result.counts.errored, 0, "streams open at a reset are never answered")
        // A reset also destroys answers still on the wire (RST discards unread data), so the mock
        // may have written a few answers its client never read: each is one of the client's errors.
        XCTAssertGreaterThanOrEqual(stats.accepted, result.counts.succeeded)
        XCTAssertLessThanOrEqual(stats.accepted - result.counts.succeeded, result.counts.errored)
    }

    func testRetriesRecoverThePushesAResetLost() throws {
        let (result, stats) = try runThroughResets(.nghttp2, retries: 3)
        XCTAssertEqual(result.counts.succeeded, 1500, "\(result.erroredByKind)")
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertGreaterThan(result.retries.recovered, 0)
        // A push whose answer the reset destroyed on the wire is sent again and accepted twice, as
        // a real sender's would be: only retries can add acceptances.
        XCTAssertGreaterThanOrEqual(stats.accepted, 1500)
        XCTAssertLessThanOrEqual(stats.accepted - 1500, result.retries.attempts.sent)
    }

    func testTheCurlTransportKeepsItsBooksBalanced() throws {
        let (result, stats) = try runThroughResets(.curl, retries: 0)
        XCTAssertTrue(result.counts.isBalanced)
        XCTAssertEqual(result.counts.sent, 1500)
        XCTAssertGreaterThanOrEqual(stats.connectionResets, 5)
        // libcurl fails every transfer of a broken connection, even one whose answer it had read
        // in the same pass: such pushes are accepted by the mock and errored for the sender.
        XCTAssertGreaterThanOrEqual(stats.accepted, result.counts.succeeded)
        XCTAssertLessThanOrEqual(stats.accepted - result.counts.succeeded, result.counts.errored)
    }
}
