import XCTest

@testable import Wire

/// The fixed buffer payloads are written into keeps what fits, counts what does not, and never
/// writes past its end.
final class CappedBytesTests: XCTestCase {
    func testWhatPassesTheEndIsCountedNotWritten() {
        var memory = [UInt8](repeating: 0xEE, count: 10)
        memory.withUnsafeMutableBufferPointer { memory in
            var output = CappedBytes(UnsafeMutableBufferPointer(rebasing: memory[..<8]))
            output.append(constant: "abcde")
            output.append(UInt8(ascii: "f"))
            XCTAssertTrue(output.fits)
            output.append(constant: "ghi")
            output.append(UInt8(ascii: "j"))
            XCTAssertEqual(output.count, 10)
            XCTAssertFalse(output.fits)
        }
        XCTAssertEqual(Array(memory[..<6]), Array("abcdef".utf8))
        XCTAssertEqual(Array(memory[8...]), [0xEE, 0xEE], "nothing written past the buffer")
    }

    func testJSONWritesTheSameBytesAsIntoAnArray() {
        let value = JSONValue.object([
            JSONMember("a\"b", .array([.integer(-12), .double(0.25), .bool(true), .null])),
            JSONMember("é", .string("line\nbreak")),
        ])
        var array: [UInt8] = []
        JSONWriter.write(value, to: &array)
        var memory = [UInt8](repeating: 0, count: 64)
        let count = memory.withUnsafeMutableBufferPointer { memory in
            var output = CappedBytes(memory)
            JSONWriter.write(value, to: &output)
            return output.count
        }
        XCTAssertEqual(Array(memory[..<count]), array)
    }
}
