import Encodings
import Foundation
import XCTest

@testable import Workload

final class TokenSetTests: XCTestCase {
    func testSplitMix64MatchesTheReferenceSequence() {
        // First outputs of Vigna's splitmix64.c seeded with 0.
        var generator = SplitMix64(seed: 0)
        XCTAssertEqual(generator.next(), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(generator.next(), 0x6E78_9E6A_A1B9_65F4)
    }

    func testHexDigitsAgreeWithTheStandardLibrary() {
        var random = SplitMix64(seed: 99)
        let words: [UInt64] =
            [0, .max, 0x0123_4567_89AB_CDEF, 0xA0B1_C2D3_E4F5_0918] + (0..<1000).map { _ in random.next() }
        for word in words {
            var digits = [UInt8](repeating: 0, count: 16)
            digits.withUnsafeMutableBytes { HexDigits.store(word, at: $0.baseAddress!) }
            let expected = String(word, radix: 16)
            XCTAssertEqual(
                String(decoding: digits, as: UTF8.self),
                String(repeating: "0", count: 16 - expected.count) + expected
            )
        }
    }

    func testHexIsTheRawBytesInLowercaseHex() {
        for byteCount in [32, 3, 13, 100] {
            let tokens = TokenSet(seed: 5, count: 50, byteCount: byteCount)
            for index in [0, 17, 49] {
                let expected = tokens.bytes(at: index).map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }
                    .joined()
                XCTAssertEqual(tokens.hex(at: index), expected)
                XCTAssertEqual(tokens.hex(at: index).count, byteCount * 2)
                var path = Array("/3/device/".utf8)
                tokens.appendHex(at: index, to: &path)
                XCTAssertEqual(String(decoding: path, as: UTF8.self), "/3/device/" + expected)
            }
        }
    }

    func testTokensAreReproducibleAndIndependentOfDrawOrder() {
        let first = TokenSet(seed: 7, count: 100)
        let second = TokenSet(seed: 7, count: 100)
        XCTAssertEqual(first.hex(at: 99), second.hex(at: 99))
        XCTAssertEqual((0..<100).map(first.hex), (0..<100).reversed().map(second.hex).reversed())
        XCTAssertNotEqual(first.hex(at: 0), TokenSet(seed: 8, count: 100).hex(at: 0))
    }

    func testKindsAreSeparatePopulations() {
        let hexes = TokenKind.allCases.map { TokenSet(seed: 7, kind: $0, count: 1, byteCount: 32).hex(at: 0) }
        XCTAssertEqual(Set(hexes).count, TokenKind.allCases.count)
    }

    func testTokensAreDistinct() {
        let tokens = TokenSet(seed: 1, count: 20_000)
        XCTAssertEqual(Set((0..<tokens.count).map(tokens.hex)).count, 20_000)
    }

    func testChannelIDsAreBase64OfSixteenBytes() {
        let channels = TokenSet(seed: 3, kind: .channel, count: 10)
        for index in 0..<10 {
            let id = channels.base64(at: index)
            XCTAssertEqual(id.count, 24)
            XCTAssertTrue(id.hasSuffix("=="))
            XCTAssertEqual(Data(base64Encoded: id).map(Array.init), channels.bytes(at: index))
        }
        for (text, expected) in [
            ("any carnal pleas", "YW55IGNhcm5hbCBwbGVhcw=="), ("any carnal pleasu", "YW55IGNhcm5hbCBwbGVhc3U="),
            ("any carnal pleasur", "YW55IGNhcm5hbCBwbGVhc3Vy"),
        ] {
            var output = [UInt8](repeating: 0, count: Base64.encodedLength(of: text.utf8.count, .standard))
            Array(text.utf8).withUnsafeBytes { input in
                output.withUnsafeMutableBytes { Base64.write(input, to: $0.baseAddress!, .standard) }
            }
            XCTAssertEqual(String(decoding: output, as: UTF8.self), expected)
        }
    }

    func testShardsAreDisjointAndTheirUnionIsTheWhole() throws {
        for total in [0, 1, 7, 1000, 1_000_003] {
            for count in [1, 2, 3, 8, 13] {
                let ranges = try (0..<count).map { try Shard(index: $0, count: count).range(in: total) }
                XCTAssertEqual(ranges.first?.lowerBound, 0)
                XCTAssertEqual(ranges.last?.upperBound, total)
                for (left, right) in zip(ranges, ranges.dropFirst()) {
                    XCTAssertEqual(left.upperBound, right.lowerBound)
                }
                XCTAssertLessThanOrEqual(Set(ranges.map(\.count)).count, 2, "sizes differ by at most one")
            }
        }
        XCTAssertEqual(try Shard(parsing: "2/5"), try Shard(index: 2, count: 5))
        XCTAssertEqual(Shard.whole.range(in: 10), 0..<10)
    }

    func testShardFilesConcatenateIntoTheWholeFile() throws {
        let tokens = TokenSet(seed: 11, count: 1001, byteCount: 32)
        for format in TokenFormat.allCases {
            let whole = file(tokens, format, Shard.whole)
            XCTAssertEqual(whole.count, 1001 * format.recordLength(of: tokens))
            let shards = try (0..<4).flatMap { file(tokens, format, try Shard(index: $0, count: 4)) }
            XCTAssertEqual(shards, whole, "\(format)")
        }
        let lines = String(decoding: file(tokens, .hex, .whole), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.map(String.init), (0..<1001).map(tokens.hex))
    }

    func testBadShardsAreRefusedWithTheRule() {
        for text in ["4/4", "-1/4", "1/0", "1", "a/b", "1/2/3"] {
            XCTAssertThrowsError(try Shard(parsing: text), text) { error in
                XCTAssertTrue("\(error)".contains("shard"), "\(error)")
            }
        }
    }

    private func file(_ tokens: TokenSet, _ format: TokenFormat, _ shard: Shard) -> [UInt8] {
        let range = shard.range(in: tokens.count)
        return [UInt8](unsafeUninitializedCapacity: range.count * format.recordLength(of: tokens)) { buffer, count in
            format.write(range, of: tokens, to: UnsafeMutableRawPointer(buffer.baseAddress!))
            count = range.count * format.recordLength(of: tokens)
        }
    }
}
