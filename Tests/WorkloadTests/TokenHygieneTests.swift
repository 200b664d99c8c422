import XCTest

@testable import Workload

final class TokenHygieneTests: XCTestCase {
    func testFatesFollowTheFractions() throws {
        let hygiene = try TokenHygiene(
            unregisteredFraction: 0.1,
            expiringFraction: 0.05,
            otherTopicFraction: 0.02,
            expiryWindowSeconds: 120
        )
        let tokens = TokenSet(seed: 4, count: 100_000)
        var counts: [String: Int] = [:]
        var expiries: [Int64] = []
        for index in 0..<tokens.count {
            switch hygiene.fate(of: tokens, at: index) {
            case .valid: counts["valid", default: 0] += 1
            case .unregistered: counts["unregistered", default: 0] += 1
            case .otherTopic: counts["otherTopic", default: 0] += 1
            case .expires(let seconds):
                counts["expires", default: 0] += 1
                expiries.append(seconds)
            }
        }
        // Binomial counts: 4 standard deviations of 100,000 draws is under 0.4 %.
        XCTAssertEqual(Double(counts["unregistered"] ?? 0) / 1e5, 0.10, accuracy: 0.004)
        XCTAssertEqual(Double(counts["expires"] ?? 0) / 1e5, 0.05, accuracy: 0.003)
        XCTAssertEqual(Double(counts["otherTopic"] ?? 0) / 1e5, 0.02, accuracy: 0.002)
        XCTAssertTrue(expiries.allSatisfy { (0..<120).contains($0) })
        XCTAssertEqual(Double(expiries.reduce(0, +)) / Double(expiries.count), 59.5, accuracy: 2)
    }

    func testTheFateDependsOnTheTokenAloneInAnyCase() throws {
        let hygiene = try TokenHygiene(unregisteredFraction: 0.5)
        let tokens = TokenSet(seed: 8, count: 200)
        for index in 0..<200 {
            let hex = tokens.hex(at: index)
            XCTAssertEqual(hygiene.fate(ofHex: hex.utf8), hygiene.fate(of: tokens, at: index))
            XCTAssertEqual(hygiene.fate(ofHex: hex.uppercased().utf8), hygiene.fate(ofHex: hex.utf8))
        }
        XCTAssertTrue(TokenHygiene.clean.isClean)
        XCTAssertEqual(TokenHygiene.clean.fate(of: tokens, at: 0), .valid)
    }

    func testImpossibleProfilesAreRefused() {
        XCTAssertThrowsError(try TokenHygiene(unregisteredFraction: 1.5))
        XCTAssertThrowsError(try TokenHygiene(unregisteredFraction: 0.6, expiringFraction: 0.6))
        XCTAssertThrowsError(try TokenHygiene(expiringFraction: 0.1, expiryWindowSeconds: 0))
    }
}
