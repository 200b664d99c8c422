import XCTest

@testable import Workload

final class DeviceTokenSetTests: XCTestCase {
    func testSplitMix64MatchesTheReferenceSequence() {
        // First outputs of Vigna's splitmix64.c seeded with 0.
        var generator = SplitMix64(seed: 0)
        XCTAssertEqual(generator.next(), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(generator.next(), 0x6E78_9E6A_A1B9_65F4)
    }

    func testTokensAre64LowercaseHexDigits() {
        let tokens = DeviceTokenSet(seed: 42, count: 1000)
        for index in [0, 1, 500, 999] {
            let token = tokens.hexToken(at: index)
            XCTAssertEqual(token.count, 64)
            XCTAssertTrue(token.allSatisfy { "0123456789abcdef".contains($0) }, token)
        }
    }

    func testTokensAreReproducibleAndIndependentOfDrawOrder() {
        let first = DeviceTokenSet(seed: 7, count: 100)
        let second = DeviceTokenSet(seed: 7, count: 100)
        XCTAssertEqual(first.hexToken(at: 99), second.hexToken(at: 99))
        XCTAssertEqual((0..<100).map(first.hexToken), (0..<100).reversed().map(second.hexToken).reversed())
        XCTAssertNotEqual(first.hexToken(at: 0), DeviceTokenSet(seed: 8, count: 100).hexToken(at: 0))
    }

    func testTokensAreDistinct() {
        let tokens = DeviceTokenSet(seed: 1, count: 20_000)
        XCTAssertEqual(Set((0..<tokens.count).map(tokens.hexToken)).count, 20_000)
    }

    func testTokenLengthIsConfigurable() {
        XCTAssertEqual(DeviceTokenSet(seed: 1, count: 1, byteCount: 100).hexToken(at: 0).count, 200)
        XCTAssertEqual(DeviceTokenSet(seed: 1, count: 1, byteCount: 3).hexToken(at: 0).count, 6)
    }

    func testMatchUpdatesAreDeterministicAndPlausible() {
        let stream = MatchUpdateStream(seed: 3)
        XCTAssertEqual(stream.update(at: 12), MatchUpdateStream(seed: 3).update(at: 12))
        let updates = (0..<5000).map(stream.update)
        XCTAssertTrue(updates.allSatisfy { (1...90).contains($0.minute) })
        // About 2.7 goals per 90 minutes: at a uniform minute the mean total is about 2.7 × 45.5/90 ≈ 1.37.
        let meanGoals = Double(updates.map { $0.homeScore + $0.awayScore }.reduce(0, +)) / Double(updates.count)
        XCTAssertEqual(meanGoals, 1.37, accuracy: 0.15)
        XCTAssertTrue(updates.contains { $0.isGoal })
        XCTAssertTrue(updates.filter(\.isGoal).allSatisfy { $0.lastEvent.hasPrefix("Goal!") })
    }
}
