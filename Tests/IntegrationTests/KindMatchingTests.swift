import ArrivalMatching
import Workload
import XCTest

/// A push is matched by what it is: its kind (`aps.event`) and its activity. An end never
/// answers an update nor the reverse; a service's untagged update answers the latest update its
/// activity was owed by then (the earlier ones coalesced, `superseded`); a push before the clock
/// started is counted apart and matched to nothing.
final class KindMatchingTests: XCTestCase {
    private static let second: Int64 = 1_000_000_000

    /// One activity, `a`: updates due at 0, 1 and 2 s (calls 0-2) and its end at 3 s (call 3),
    /// for a service (each call one push) told them all up front, whose clock starts at
    /// `startNs` when given.
    private func book(startNs: Int64? = 0, told: Bool = true) -> ArrivalBook {
        var schedule = PushSchedule()
        for call in 0..<4 {
            _ = schedule.add(
                token: "a",
                dueMicroseconds: Int64(call) * 1_000_000,
                identity: call,
                phase: call == 3 ? .end : .update
            )
        }
        let book = ArrivalBook(schedule: schedule, startNs: startNs, callSizes: [1, 1, 1, 1])
        if told {
            for call in 0..<4 { book.sent(call: call, atNs: startNs ?? 0) }
        }
        return book
    }

    /// An untagged push of `event` to `a`, `seconds` into the clock.
    private func arrive(_ book: ArrivalBook, _ event: LifecyclePhase?, at seconds: Double) {
        let body = event.map { #"{"aps":{"event":"\#($0.rawValue)"}}"# } ?? #"{"aps":{}}"#
        book.arrived(
            TrafficRecord.arrival("a", event: event).arriving(
                at: Int64(seconds * Double(Self.second)),
                body: Array(body.utf8)
            )
        )
    }

    func testAnEndAnswersTheEndItWasOwedNeverAnUpdate() {
        let book = book()
        // The service's own clock: it ends the activity first, 1.5 s early, then sends its updates.
        arrive(book, .end, at: 1.5)
        for (index, at) in [0.1, 1.1, 2.1].enumerated() {
            arrive(book, .update, at: at + Double(index) * 0.001)
        }
        let figures = book.figures
        XCTAssertEqual(figures.matched, 4)
        XCTAssertEqual(figures.missing, 0)
        XCTAssertEqual(figures.ends.owed, 1)
        XCTAssertEqual(figures.ends.matched, 1)
        XCTAssertEqual(figures.ends.early, 1, "the end came before it was owed")
        XCTAssertEqual(Double(figures.ends.lead.max), 1_500_000, accuracy: 20_000, "by 1.5 s")
        XCTAssertEqual(figures.updates.owed, 3)
        XCTAssertEqual(figures.updates.matched, 3)
        XCTAssertEqual(book.calls.map(\.arrived), [1, 1, 1, 1], "each push charged to the call that owed it")
        XCTAssertEqual(Double(figures.updates.lag.max) / 1000, 101, accuracy: 2, "each update 0.1 s after its call")
        XCTAssertEqual(figures.updates.cadence.totalCount, 2, "two gaps between three updates")
        XCTAssertEqual(Double(figures.updates.cadence.min) / 1000, 1001, accuracy: 2, "about a second apart")
    }

    func testAnUpdateNeverAnswersAnEndEvenWhenNoUpdateIsLeft() {
        let book = book()
        for at in [0.1, 1.1, 2.1, 2.2] { arrive(book, .update, at: at) }
        let figures = book.figures
        XCTAssertEqual(figures.updates.matched, 3)
        XCTAssertEqual(figures.extra, 1, "a fourth update answers nothing: the end is still owed")
        XCTAssertEqual(figures.ends.matched, 0)
        XCTAssertEqual(figures.missing, 1, "the end")
    }

    /// A service that coalesces: one update at 2.5 s carries the state of calls 0-2. It answers
    /// call 2; calls 0 and 1 are superseded, not missing, and how stale the newest was is kept.
    func testACoalescedUpdateSupersedesTheEarlierOwedUpdatesOfItsActivity() {
        let book = book()
        arrive(book, .update, at: 2.5)
        arrive(book, .end, at: 3.2)
        let figures = book.figures
        XCTAssertEqual(figures.matched, 2)
        XCTAssertEqual(figures.superseded, 2)
        XCTAssertEqual(figures.missing, 0)
        XCTAssertEqual(Double(figures.staleness.max) / 1000, 1500, accuracy: 20, "call 1 was owed at 1 s")
        let calls = book.calls
        XCTAssertEqual(calls.map(\.arrived), [0, 0, 1, 1])
        XCTAssertEqual(calls.map(\.superseded), [1, 1, 0, 0])
        XCTAssertEqual(calls[2].milestones.lastMs ?? 0, 500, accuracy: 1, "the push that came is call 2's")
        XCTAssertEqual(book.counts.matched, 4, "nothing is left to wait for")
    }

    /// A service that was behind, not coalescing: the pushes for calls 0 and 1 come after all,
    /// and take back what the first late push had superseded.
    func testLaterPushesTakeBackWhatWasSupersededWhenTheServiceWasOnlyBehind() {
        let book = book()
        for at in [2.5, 2.6, 2.7] { arrive(book, .update, at: at) }
        let figures = book.figures
        XCTAssertEqual(figures.matched, 3)
        XCTAssertEqual(figures.superseded, 0)
        XCTAssertEqual(figures.extra, 0)
        XCTAssertEqual(book.calls.map(\.superseded), [0, 0, 0, 0])
        XCTAssertEqual(book.calls.map(\.arrived), [1, 1, 1, 0])
    }

    /// A welcome push before the clock started is no answer to anything, and no lag from a 0
    /// that has not happened: counted by kind, apart.
    func testAPushBeforeTheClockIsCountedApartAndMatchesNothing() {
        let book = book(startNs: nil)
        arrive(book, .update, at: 1_000)
        arrive(book, nil, at: 1_000.5)
        var figures = book.figures
        XCTAssertEqual(figures.pushes, 2)
        XCTAssertEqual(figures.beforeClock.update, 1)
        XCTAssertEqual(figures.beforeClock.none, 1)
        XCTAssertEqual(figures.matched, 0)
        XCTAssertEqual(figures.duplicates, 0)
        XCTAssertEqual(figures.lag.totalCount, 0)
        book.start(atNs: 1_001 * Self.second)
        arrive(book, .update, at: 1_001.2)
        figures = book.figures
        XCTAssertEqual(figures.matched, 1)
        XCTAssertEqual(figures.beforeClock.total, 2, "only those before the clock")
        XCTAssertEqual(Double(figures.lag.max) / 1000, 200, accuracy: 2, "from the clock's 0, not the machine's")
    }

    /// A push to an activity before any call to it was sent is the service's own too, tagged
    /// (a template's `pushbench_event` reused) or not: counted apart, never a duplicate later.
    func testAPushBeforeAnyCallAskedAnythingIsTheServicesOwn() {
        let book = book(told: false)
        arrive(book, .update, at: 0.1)
        book.arrived(
            TrafficRecord.arrival("a").arriving(
                at: Self.second / 5,
                body: Array(#"{"aps":{"content-state":{"pushbench_event":0}}}"#.utf8)
            )
        )
        book.sent(call: 0, atNs: Self.second / 2)
        arrive(book, .update, at: 0.6)
        let figures = book.figures
        XCTAssertEqual(figures.beforeClock.update, 2)
        XCTAssertEqual(figures.matched, 1, "call 0's own push")
        XCTAssertEqual(figures.duplicates, 0)
        XCTAssertEqual(figures.extra, 0)
    }

    /// A push with no `aps.event` keeps the former rule: any kind, in order.
    func testAPushWithoutAnEventIsMatchedInOrder() {
        let book = book()
        for at in [0.1, 1.1, 2.1, 3.1] { arrive(book, nil, at: at) }
        let figures = book.figures
        XCTAssertEqual(figures.matched, 4)
        XCTAssertEqual(figures.ends.matched, 1)
        XCTAssertEqual(figures.missing, 0)
    }
}
