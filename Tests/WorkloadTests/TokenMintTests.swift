import Workload
import XCTest

final class TokenMintTests: XCTestCase {
    func testATokenSaysWhoseItIsWhichKindAndWhichGeneration() {
        let mint = TokenMint(seed: 7)
        for (device, kind, generation) in [
            (0, TokenMint.Kind.pushToStart, 0), (999_999, .update, 1), (1 << 31, .update, 255),
        ] {
            let token = mint.hex(device: device, kind: kind, generation: generation)
            XCTAssertEqual(token.utf8.count, 64)
            XCTAssertTrue(token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }, token)
            XCTAssertEqual(mint.read(token), TokenMint.Reading(device: device, kind: kind, generation: generation))
            XCTAssertEqual(
                mint.read(token.uppercased()),
                TokenMint.Reading(device: device, kind: kind, generation: generation)
            )
        }
    }

    func testATokenTheMintNeverMadeIsKnownAsSuch() {
        let mint = TokenMint(seed: 7)
        let token = mint.hex(device: 42, kind: .update)
        XCTAssertNil(TokenMint(seed: 8).read(token), "another seed's mint")
        XCTAssertNil(mint.read(String(repeating: "ab", count: 32)))
        XCTAssertNil(mint.read(String(token.dropLast())), "63 digits")
        XCTAssertNil(mint.read(token + "0"), "65 digits")
        XCTAssertNil(mint.read(String(token.dropLast()) + "g"), "not hex")
        // Every single-digit change breaks the check, wherever it falls.
        for position in [0, 17, 40, 63] {
            var digits = Array(token.utf8)
            digits[position] = digits[position] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            XCTAssertNil(mint.read(String(decoding: digits, as: UTF8.self)), "digit \(position) changed")
        }
        let tokenSet = TokenSet(seed: 7, kind: .activityUpdate, count: 1000)
        XCTAssertTrue((0..<1000).allSatisfy { mint.read(tokenSet.hex(at: $0)) == nil }, "random tokens")
    }

    func testTokensLookRandomAndNeighboursShareNothing() {
        let mint = TokenMint(seed: 1)
        let tokens = (0..<10_000).map { mint.hex(device: $0, kind: .update) }
        XCTAssertEqual(Set(tokens).count, tokens.count)
        XCTAssertEqual(Set(tokens.map { $0.prefix(8) }).count, tokens.count, "no shared prefix")
        XCTAssertNotEqual(mint.hex(device: 5, kind: .update), mint.hex(device: 5, kind: .pushToStart))
        XCTAssertNotEqual(mint.hex(device: 5, kind: .update), mint.hex(device: 5, kind: .update, generation: 1))
        // Each hex digit about equally often: a sixteenth of 640,000, within 5%.
        var counts = [Int](repeating: 0, count: 128)
        for token in tokens { for digit in token.utf8 { counts[Int(digit)] += 1 } }
        for digit in Array("0123456789abcdef".utf8) {
            XCTAssertEqual(
                Double(counts[Int(digit)]),
                40_000,
                accuracy: 2_000,
                "digit \(Character(UnicodeScalar(digit)))"
            )
        }
    }
}
