import ArrivalMatching
import Arrivals
import Foundation
import Profiling
import TestSupport
import Workload
import XCTest

/// How the arrival book matches what the mock received to what the sender was handed: by the event
/// number the events file's payloads carry, so a push sent twice is a duplicate of its event,
/// not the answer to its token's next one; by order only when the sender rebuilt the payload.
final class ArrivalBookMatchingTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    /// The events file of a football match's first `count` pushes, as (token, payload) by line,
    /// with the book of its schedule.
    private func events(_ count: Int) throws -> (lines: [(token: String, payload: [UInt8])], book: ArrivalBook) {
        let scenario = Scenario(name: "match", cohorts: [Scenario.Cohort(kind: .football, activities: 2, groups: 1)])
        let written = try EventsFile.write(
            scenario: scenario,
            requests: count,
            timing: .allAtOnce,
            bundleID: "com.example.pushbench",
            startAt: 1_800_000_000,
            eventsPath: directory.file("events.jsonl"),
            tokensPath: directory.file("tokens.txt")
        )
        let text = try String(contentsOfFile: directory.file("events.jsonl"), encoding: .utf8)
        // The payload's bytes as written (the line's last member), as a sender passes them on.
        let lines = try text.split(separator: "\n").map { line in
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let payload = try XCTUnwrap(line.range(of: #","payload":"#)).upperBound
            return (try XCTUnwrap(object["token"] as? String), Array(line[payload...].dropLast().utf8))
        }
        return (lines, ArrivalBook(schedule: written.schedule, startNs: 1_800_000_000 * 1_000_000_000))
    }

    private func push(_ token: String, status: Int = 200) -> TrafficRecord {
        .arrival(token, status: status)
    }

    /// The payload as a sender that rebuilds it from the content state would send it.
    private func untagged(_ payload: [UInt8]) -> [UInt8] {
        Array(String(decoding: payload, as: UTF8.self).replacing(#/"pushbench_event":\d+,?/#, with: "").utf8)
    }

    func testEveryPayloadCarriesItsEventsNumberFirstInItsContentState() throws {
        let (lines, _) = try events(6)
        for (number, line) in lines.enumerated() {
            let text = String(decoding: line.payload, as: UTF8.self)
            XCTAssertTrue(text.contains(#""content-state":{"pushbench_event":\#(number),"#), text)
        }
    }

    func testTwoCopiesOfASenderAreTheirEventsOnceAndAsManyDuplicates() throws {
        let (lines, book) = try events(6)
        let received = Int64(1_800_000_001) * 1_000_000_000
        for _ in 0..<2 {
            for line in lines { book.arrived(push(line.token).arriving(at: received, body: line.payload)) }
        }
        let figures = book.figures
        XCTAssertEqual(figures.matched, 6, "each event once")
        XCTAssertEqual(figures.duplicates, 6, "and each sent twice")
        XCTAssertEqual(figures.extra, 0)
        XCTAssertEqual(figures.missing, 0)
        XCTAssertEqual(figures.lag.totalCount, 6, "lag counts first arrivals only")
        XCTAssertEqual(figures.lag.min, 1_000_000, accuracy: 1000, "a second after their due time, all of them")
    }

    func testAPushWithoutTheNumberIsMatchedByOrderAsAreAllOnceASenderReusesPayloads() throws {
        let (lines, book) = try events(60)
        let received = Int64(1_800_000_000) * 1_000_000_000
        // A token the scenario sends two events or more: its updates, after its start.
        let token = try XCTUnwrap(
            lines.map(\.token).first { token in lines.filter { $0.token == token }.count >= 2 },
            "the scenario sends a token more than one event"
        )
        let sameToken = lines.indices.filter { lines[$0].token == token }
        // The token's second event arrives first, by number; then a rebuilt payload answers the
        // first event not yet answered: its first.
        book.arrived(push(token).arriving(at: received, body: lines[sameToken[1]].payload))
        book.arrived(push(token).arriving(at: received, body: untagged(lines[sameToken[0]].payload)))
        XCTAssertTrue(book.acceptedAnswer(token: token, identity: sameToken[0]))
        XCTAssertTrue(book.acceptedAnswer(token: token, identity: sameToken[1]))
        // Another token sent this token's payload: a sender that reuses one payload (h2load's
        // way), whose numbers say nothing, so from now on every push is matched by order.
        let other = try XCTUnwrap(lines.firstIndex { $0.token != token })
        book.arrived(push(lines[other].token).arriving(at: received, body: lines[sameToken[0]].payload))
        XCTAssertTrue(book.acceptedAnswer(token: lines[other].token, identity: other))
        if sameToken.count > 2 {
            book.arrived(push(token).arriving(at: received, body: lines[sameToken[0]].payload))
            XCTAssertTrue(
                book.acceptedAnswer(token: token, identity: sameToken[2]),
                "the token's next event, not a duplicate"
            )
        }
        let figures = book.figures
        XCTAssertEqual(figures.matched, min(3, sameToken.count) + 1)
        XCTAssertEqual(figures.extra, 0)
        XCTAssertEqual(figures.duplicates, 0)
    }

    func testARetryOfARefusedPushIsExtraNotADuplicate() throws {
        let (lines, book) = try events(2)
        let received = Int64(1_800_000_000) * 1_000_000_000 - 500_000_000
        book.arrived(push(lines[0].token, status: 429).arriving(at: received, body: lines[0].payload))
        book.arrived(push(lines[0].token).arriving(at: received, body: lines[0].payload))
        let figures = book.figures
        XCTAssertEqual(figures.matched, 1, "the refused push answered its event")
        XCTAssertEqual(figures.extra, 1, "the retry explains nothing more")
        XCTAssertEqual(figures.duplicates, 0, "retrying a refusal is no bug")
        XCTAssertEqual(figures.early, 1, "it arrived half a second before it was due")
        XCTAssertTrue(book.acceptedAnswer(token: lines[0].token, identity: 0), "the budget spends the accepted retry")
    }

    func testAnAcceptedRetryOfAnUntaggedPushDeliversTheEventItsRefusalAnswered() throws {
        let (lines, book) = try events(2)
        let received = Int64(1_800_000_000) * 1_000_000_000
        let body = untagged(lines[0].payload)
        book.arrived(push(lines[0].token, status: 429).arriving(at: received, body: body))
        XCTAssertFalse(book.acceptedAnswer(token: lines[0].token, identity: 0), "refused, not yet retried")
        book.arrived(push(lines[0].token).arriving(at: received, body: body))
        XCTAssertTrue(book.acceptedAnswer(token: lines[0].token, identity: 0))
        XCTAssertEqual(book.figures.extra, 1, "the retry explains nothing more")
        XCTAssertEqual(book.figures.matched, 1)
    }
}

/// A service that learns its tokens from the devices' reports: each call owes a push only to the
/// activities whose report it had answered before the call was sent, and a push without the
/// call's number is matched among the calls sent after its token was reported.
final class ReportedTokenMatchingTests: XCTestCase {
    /// Three calls to the same two activities, `a` and `b`, due 1 s apart.
    private func book() -> ArrivalBook {
        var schedule = PushSchedule()
        for call in 0..<3 {
            for token in ["a", "b"] {
                _ = schedule.add(token: token, dueMicroseconds: Int64(call) * 1_000_000, identity: call)
            }
        }
        return ArrivalBook(schedule: schedule, startNs: 0, callSizes: [2, 2, 2], tokensReported: true)
    }

    private func arrive(_ book: ArrivalBook, _ token: String, atNs: Int64) {
        book.arrived(TrafficRecord.arrival(token).arriving(at: atNs, body: Array(#"{"aps":{"event":"update"}}"#.utf8)))
    }

    /// `b` was reported between call 0 and call 1: call 0 owed it nothing, and the service's
    /// first push to it answers call 1, not call 0; every call reached all it owed.
    func testAPushToALateTokenAnswersTheFirstCallSentAfterItsReport() {
        let book = book()
        book.learned(token: "a", atNs: 0)
        book.sent(call: 0, atNs: 10)
        arrive(book, "a", atNs: 20)
        book.learned(token: "b", atNs: 30)
        for call in 1..<3 {
            book.sent(call: call, atNs: Int64(call) * 1_000)
            arrive(book, "a", atNs: Int64(call) * 1_000 + 5)
            arrive(book, "b", atNs: Int64(call) * 1_000 + 6)
        }
        XCTAssertEqual(book.calls.map(\.expected), [1, 2, 2], "call 0 was sent before b was reported")
        XCTAssertEqual(book.calls.map(\.arrived), [1, 2, 2])
        let figures = book.figures
        XCTAssertEqual(figures.events, 5)
        XCTAssertEqual(figures.missing, 0)
        XCTAssertEqual(figures.extra, 0)
        XCTAssertEqual(book.evidence(token: "b").owedCalls, [1, 2])
    }

    /// A token reported and then lost: each call sent after the report owes it a push, and the
    /// evidence says none came.
    func testATokenTheServiceWasToldButNeverPushedIsOwedEveryLaterCall() {
        let book = book()
        book.learned(token: "a", atNs: 0)
        book.learned(token: "b", atNs: 0)
        for call in 0..<3 {
            book.sent(call: call, atNs: Int64(call + 1) * 1_000)
            arrive(book, "a", atNs: Int64(call + 1) * 1_000 + 5)
        }
        XCTAssertEqual(book.figures.missing, 3)
        let evidence = book.evidence(token: "b")
        XCTAssertEqual(evidence.owed, 3)
        XCTAssertEqual(evidence.accepted + evidence.refused, 0)
        XCTAssertEqual(evidence.firstOwedSentNs, 1_000)
    }

    /// The expected counts the progress line reads are kept as tokens are learned (again,
    /// earlier), calls sent (again, earlier) and pushes matched, in any order: after every step
    /// they equal a count over every event of what was owed or answered.
    func testTheExpectedCountsStayTrueThroughAnyOrderOfReportsCallsAndPushes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let tokens = (0..<12).map { "t\($0)" }
            var schedule = PushSchedule()
            var pairs: [(token: Int, call: Int)] = []
            for call in 0..<5 {
                for token in tokens.indices where Bool.random(using: &generator) {
                    _ = schedule.add(token: tokens[token], dueMicroseconds: Int64(call) * 1_000_000, identity: call)
                    pairs.append((token, call))
                }
            }
            let book = ArrivalBook(schedule: schedule, startNs: 0, callSizes: [1, 1, 1, 1, 1], tokensReported: true)
            var learned = [Int64](repeating: .max, count: tokens.count)
            var sent = [Int64](repeating: .max, count: 5)
            var answered = Set<Int>()  // indices into pairs
            for _ in 0..<60 {
                let time = Int64.random(in: 0..<1_000, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    let token = Int.random(in: tokens.indices, using: &generator)
                    book.learned(token: tokens[token], atNs: time)
                    learned[token] = min(learned[token], time)
                case 1:
                    let call = Int.random(in: 0..<5, using: &generator)
                    book.sent(call: call, atNs: time)
                    sent[call] = min(sent[call], time)
                default:
                    guard let pair = pairs.indices.randomElement(using: &generator) else { continue }
                    let payload = Array(#"{"aps":{"event":"update","content-state":{}}}"#.utf8)
                    book.arrived(
                        TrafficRecord.arrival(tokens[pairs[pair].token]).arriving(
                            at: time,
                            body: EventTag.tagged(payload, event: pairs[pair].call)
                        )
                    )
                    // A push before its call was sent is the service's own: it answers nothing.
                    if sent[pairs[pair].call] != .max { answered.insert(pair) }
                }
                var expected = [Int](repeating: 0, count: 5)
                for (index, pair) in pairs.enumerated() {
                    let owed = sent[pair.call] != .max && sent[pair.call] >= learned[pair.token]
                    if owed || answered.contains(index) { expected[pair.call] += 1 }
                }
                XCTAssertEqual(book.calls.map(\.expected), expected)
                XCTAssertEqual(book.counts.events, expected.reduce(0, +))
                XCTAssertEqual(book.figures.events, expected.reduce(0, +))
            }
        }
    }

    /// A token never reported is owed nothing: not missing, and a push to it is matched all the
    /// same (the service knew it some other way).
    func testATokenNeverReportedIsOwedNothing() {
        let book = book()
        book.learned(token: "a", atNs: 0)
        for call in 0..<3 { book.sent(call: call, atNs: Int64(call + 1) * 1_000) }
        for call in 0..<3 { arrive(book, "a", atNs: 10_000 + Int64(call)) }
        XCTAssertEqual(book.figures.events, 3)
        XCTAssertEqual(book.figures.missing, 0)
        arrive(book, "b", atNs: 20_000)
        XCTAssertEqual(book.figures.matched, 4)
        XCTAssertEqual(book.figures.extra, 0)
        XCTAssertEqual(book.evidence(token: "b").owed, 0)
    }
}
