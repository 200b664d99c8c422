import XCTest

@testable import MockAPNs

final class ProviderTokenHistoryTests: XCTestCase {
    private func identity(
        _ team: String = "DEF123GHIJ",
        issuedAt: Int64,
        signature: [UInt8] = Array(repeating: 7, count: 64)
    ) -> ProviderTokenVerifier.Identity {
        .init(
            keyID: "ABC123DEFG",
            teamID: team,
            issuedAt: issuedAt,
            signature: signature,
            authorization: "bearer \(team).\(issuedAt).\(signature)"
        )
    }

    func testANewTokenIsAdoptedAtMostOnceEveryTwentyMinutes() {
        var history = ProviderTokenHistory()
        let first = identity(issuedAt: 1000)
        let second = identity(issuedAt: 1500)
        XCTAssertNil(history.admit(first, now: 1000))
        XCTAssertNil(history.admit(first, now: 1100), "the same token is always fine")
        XCTAssertEqual(history.admit(second, now: 1000 + 1199), .tooManyProviderTokenUpdates)
        XCTAssertNil(history.admit(first, now: 1000 + 1199), "a refused token is not adopted; the old one works")
        XCTAssertNil(history.admit(second, now: 1000 + 1200))
        XCTAssertEqual(history.admit(identity(issuedAt: 2300), now: 2300), .tooManyProviderTokenUpdates)
        XCTAssertEqual(history.adoptedTokens, 2)
    }

    func testSameClaimsWithAnotherSignatureAreANewToken() {
        var history = ProviderTokenHistory()
        XCTAssertNil(history.admit(identity(issuedAt: 1000), now: 1000))
        let resigned = identity(issuedAt: 1000, signature: Array(repeating: 8, count: 64))
        XCTAssertEqual(history.admit(resigned, now: 1000), .tooManyProviderTokenUpdates)
    }

    func testTheFirstPushPinsTheTeam() {
        var history = ProviderTokenHistory()
        XCTAssertNil(history.admit(identity(issuedAt: 1), now: 1))
        XCTAssertEqual(history.admit(identity("OTHERTEAM1", issuedAt: 1), now: 5000), .invalidProviderToken)
        XCTAssertEqual(history.adoptedTokens, 1)
    }
}
