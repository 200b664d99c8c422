import LoadEngine
import MockAPNs
import Profiling
import XCTest

@testable import ProfileReports
@testable import Reports

/// A profile's books are counted, each where it happens (the pushes the mock received, the
/// answers it wrote or never wrote), so that they can fail to balance, and say so.
final class ProfileBooksTests: XCTestCase {
    private func answered(
        accepted: Int,
        refused: [String: Int],
        withheld: Int = 0,
        unsent: Int = 0
    )
        -> MockStats.Snapshot
    {
        var mock = MockStats().snapshot()
        mock.accepted = accepted
        mock.rejectedByReason = refused
        mock.answersWithheld = withheld
        mock.pushAnswersUnsent = unsent
        return mock
    }

    func testEveryPushReceivedEndsInOneOfTheMocksCounts() {
        let books = OutcomeCounts(
            received: 20,
            answered: answered(
                accepted: 9,
                refused: ["TooManyRequests": 3, "BadDeviceToken": 1],
                withheld: 2,
                unsent: 5
            )
        )
        XCTAssertEqual(books.succeeded, 9)
        XCTAssertEqual(books.rejected, 4, "the sum of the reasons")
        XCTAssertEqual(books.timedOut, 2, "withheld by the fault plan")
        XCTAssertEqual(books.answersUnsent, 5)
        XCTAssertTrue(books.isBalanced)
        XCTAssertNil(ProfileHeadline.books(OutcomeCounts(received: 4, answered: answered(accepted: 4, refused: [:]))))
        let line = ProfileHeadline.books(books)
        XCTAssertEqual(line?.good, false)
        XCTAssertTrue(
            line?.sentence.hasPrefix(
                "The mock wrote an answer to 13 of 20 pushes (9 accepted + 4 refused); 2 were withheld by the fault plan and 5 decided but never written"
            ) == true,
            line?.sentence ?? "no line"
        )
    }

    /// A push the mock received that no answer accounts for unbalances the books: the summary
    /// says `accounting_balanced: false` and the first screen says UNBALANCED.
    func testAPushNoAnswerAccountsForUnbalancesTheBooks() throws {
        let books = OutcomeCounts(received: 10, answered: answered(accepted: 6, refused: ["TooManyRequests": 2]))
        XCTAssertFalse(books.isBalanced)
        let line = try XCTUnwrap(ProfileHeadline.books(books))
        XCTAssertEqual(line.good, false)
        XCTAssertTrue(
            line.sentence.hasPrefix("UNBALANCED: the mock received 10 pushes, but its answers account for 8"),
            line.sentence
        )
    }

    /// `answers_unsent` is in a summary's counts when there were any, and read back.
    func testAnswersUnsentAreWrittenInTheSummarysCounts() throws {
        let books = OutcomeCounts(received: 7, answered: answered(accepted: 3, refused: [:], unsent: 4))
        let json = try JSONEncoder().encode(RunSummary.Counts(books))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: json) as? [String: Int])
        XCTAssertEqual(object["answers_unsent"], 4)
        XCTAssertEqual(try JSONDecoder().decode(RunSummary.Counts.self, from: json).outcomeCounts, books)
    }
}
