import Encodings
import XCTest

final class DecimalDigitsTests: XCTestCase {
    /// Every integer is written as `String` writes it, the extremes and the signs included.
    func testDigitsAreWhatStringWrites() {
        let values: [Int64] = [0, 7, 9, 10, -1, -10, 1_800_000_000_000, .max, .min, .min + 1]
        for value in values {
            let written = DecimalDigits.withDigits(of: value) { String(decoding: $0, as: UTF8.self) }
            XCTAssertEqual(written, String(value))
        }
    }
}
