import Basics
import Foundation
import Transport
import XCTest

/// The nghttp2 connection against servers that limit, refuse, go away and fall silent, with no
/// socket: each connection talks to an `InMemoryAPNsPeer` over a BIO pair, so only the
/// connection's own handling decides what happens.
final class InMemoryConnectionTests: XCTestCase {
    private let headers = HeaderBlock(lines: [
        "authorization: bearer test", "apns-push-type: liveactivity",
        "apns-topic: com.example.app.push-type.liveactivity",
    ])

    /// Submits `pushes` pushes and drives client and peers until every one has ended or
    /// `seconds` have passed (`pause` between rounds, for tests of time); returns the endings
    /// by tag.
    private func send(
        _ pushes: Int,
        through client: NGHTTP2PushClient,
        seconds: Double = 10,
        pause: useconds_t = 0
    ) throws -> [Int: PushCompletion] {
        for tag in 0..<pushes {
            try client.submit(
                tag: tag,
                intendedAt: monotonicNanos(),
                path: Array("/3/device/\(String(repeating: "ab", count: 32))".utf8),
                apnsID: (UInt64(tag), 1),
                headers: headers,
                body: Array(#"{"aps":{"event":"update"}}"#.utf8)
            )
        }
        var ended: [Int: PushCompletion] = [:]
        let deadline = Date().addingTimeInterval(seconds)
        while ended.count < pushes, Date() < deadline {
            client.perform { ended[$0.tag] = $0 }
            client.serveMemoryPeers()
            if pause > 0 { usleep(pause) }
        }
        return ended
    }

    private func answered(_ endings: [Int: PushCompletion]) -> Int {
        endings.values.count { if case .response(200, _) = $0.outcome { true } else { false } }
    }

    func testTheServersStreamLimitIsKeptAndEveryPushStillGoes() throws {
        var behaviour = InMemoryAPNsPeer.Behaviour()
        behaviour.maxConcurrentStreams = 2
        let client = try NGHTTP2PushClient.inMemory(streamsPerConnection: 100, behaviour: behaviour)
        let endings = try send(30, through: client)
        XCTAssertEqual(answered(endings), 30)
        let seen = try XCTUnwrap(client.memoryPeers.first?.seen)
        XCTAssertEqual(client.memoryPeers.count, 1)
        XCTAssertEqual(seen.requests, 30)
        XCTAssertEqual(seen.peakOpenStreams, 2, "never more streams than the server's SETTINGS allow")
    }

    func testRefusedStreamsAreSentAgainAndCounted() throws {
        var behaviour = InMemoryAPNsPeer.Behaviour()
        behaviour.refuseEvery = 3
        let client = try NGHTTP2PushClient.inMemory(behaviour: behaviour)
        // One answered first: a connection whose server never answered anything does not resend.
        XCTAssertEqual(answered(try send(1, through: client)), 1)
        let endings = try send(20, through: client)
        XCTAssertEqual(answered(endings), 20, "every refused push was sent again until answered")
        let refused = try XCTUnwrap(client.memoryPeers.first?.seen.refused)
        XCTAssertGreaterThan(refused, 5)
        XCTAssertEqual(client.recoveries?.resentRefused, refused)
        XCTAssertEqual(client.memoryPeers.first?.seen.requests, 21 + refused)
    }

    func testAGoawayEndsTheStreamsAfterItsLastIDWhichGoOnANewConnection() throws {
        var behaviour = InMemoryAPNsPeer.Behaviour()
        behaviour.goAwayAfter = 5
        let client = try NGHTTP2PushClient.inMemory(behaviour: behaviour)
        let endings = try send(12, through: client)
        XCTAssertEqual(answered(endings), 12, "the five before the GOAWAY answered, the rest sent again elsewhere")
        let peers = client.memoryPeers.map(\.seen)
        XCTAssertEqual(peers.count, 3, "a new connection after each GOAWAY: 5 + 5 + 2")
        XCTAssertEqual(peers.map(\.wentAway), [true, true, false])
        XCTAssertEqual(client.recoveries?.reconnections, 2)
        XCTAssertEqual(client.recoveries?.resentRefused, 7 + 2, "7 past the first GOAWAY, 2 past the second")
    }

    func testAServerThatNeverAnswersAPingLosesTheConnection() throws {
        var behaviour = InMemoryAPNsPeer.Behaviour()
        behaviour.answers = false
        behaviour.answersPing = false
        let client = try NGHTTP2PushClient.inMemory(behaviour: behaviour, pingInterval: .milliseconds(40))
        let began = Date()
        let endings = try send(3, through: client, seconds: 5, pause: 2_000)
        XCTAssertEqual(endings.count, 3)
        for ending in endings.values {
            guard case .failed(let kind, let message) = ending.outcome else { return XCTFail("\(ending.outcome)") }
            XCTAssertEqual(kind, .connectionLost)
            XCTAssertTrue(message.contains("no answer to PING within 40 ms"), message)
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 2, "a PING interval and its answer's, not the deadline")
    }

    func testAServerThatAnswersPingsKeepsASlowConnection() throws {
        var behaviour = InMemoryAPNsPeer.Behaviour()
        behaviour.answers = false
        let client = try NGHTTP2PushClient.inMemory(behaviour: behaviour, pingInterval: .milliseconds(20))
        let endings = try send(1, through: client, seconds: 0.3, pause: 2_000)
        XCTAssertTrue(endings.isEmpty, "still waiting, the connection alive: \(endings)")
        XCTAssertEqual(client.inFlight, 1)
    }
}
