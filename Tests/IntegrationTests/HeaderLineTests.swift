import Transport
import XCTest

/// How the curl clients read one header line: the name in any case, the value without its
/// leading spaces and line end, and nothing for another header or a line too short to hold it.
final class HeaderLineTests: XCTestCase {
    private func value(of name: String, in line: String) -> String? {
        Array(line.utf8).withUnsafeBytes { bytes in
            TransferSlot.value(of: Array(name.utf8), in: bytes).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    func testAHeaderIsReadInAnyCaseWithoutItsSpacesAndLineEnd() {
        XCTAssertEqual(value(of: "content-length:", in: "Content-Length: 42\r\n"), "42")
        XCTAssertEqual(value(of: "apns-id:", in: "APNS-ID:   0a1b2c3d \r\n"), "0a1b2c3d")
        XCTAssertEqual(value(of: "retry-after:", in: "retry-after:\r\n"), "")
    }

    func testAnotherHeaderOrAShortLineHasNoValue() {
        XCTAssertNil(value(of: "content-length:", in: "content-type: application/json\r\n"))
        XCTAssertNil(value(of: "content-length:", in: "content-len"))
        XCTAssertNil(value(of: "apns-id:", in: "apns-idx: 1\r\n"))
    }
}
