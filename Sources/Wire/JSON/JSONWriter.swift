import Encodings

/// Appends RFC 8259 JSON to a byte buffer, without Foundation.
///
/// This is the hot path of payload encoding: it writes straight into a caller-owned, reused
/// `JSONOutput` (a `[UInt8]`, or the payload encoder's fixed buffer), escapes only what RFC 8259
/// requires (quote, backslash, control characters) and passes non-ASCII through as UTF-8, which
/// APNs accepts and which keeps payloads small.
public struct JSONWriter {
    /// Appends `value` to `output`.
    public static func write(_ value: JSONValue, to output: inout some JSONOutput) {
        switch value {
        case .string(let string):
            writeString(string, to: &output)
        case .integer(let integer):
            writeInteger(integer, to: &output)
        case .double(let double):
            writeDouble(double, to: &output)
        case .bool(let bool):
            output.append(constant: bool ? "true" : "false")
        case .null:
            output.append(constant: "null")
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (position, member) in members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `string` as a quoted, escaped JSON string.
    ///
    /// Most strings need no escaping: they are copied in one block, and only a string that holds a
    /// quote, a backslash or a control character is escaped byte by byte.
    public static func writeString(_ string: String, to output: inout some JSONOutput) {
        output.append(UInt8(ascii: "\""))
        // Native strings, short ones included, lend their UTF-8 in place; only one that does
        // not hold contiguous UTF-8 is copied to be made so.
        if string.utf8.withContiguousStorageIfAvailable({ writeUTF8($0, to: &output) }) == nil {
            var string = string
            string.withUTF8 { writeUTF8($0, to: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func writeUTF8(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout some JSONOutput) {
        if containsEscapeByte(bytes) {
            for byte in bytes { appendEscaped(byte, to: &output) }
        } else {
            output.append(contentsOf: bytes)
        }
    }

    /// Whether any byte is a quote, a backslash or a control character, checked eight bytes at
    /// a time (the classic "has zero byte" and "has byte less than" word tricks, both exact).
    private static func containsEscapeByte(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = UnsafeRawPointer(bytes.baseAddress) else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let control = (word &- ones &* 0x20) & ~word & highs != 0
            if control || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C)) { return true }
            offset += 8
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            offset += 1
        }
        return false
    }

    private static func appendEscaped(_ byte: UInt8, to output: inout some JSONOutput) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            output.append(UInt8(ascii: "\\"))
            output.append(byte)
        case 0x0A:
            output.append(UInt8(ascii: "\\"))
            output.append(UInt8(ascii: "n"))
        case 0x0D:
            output.append(UInt8(ascii: "\\"))
            output.append(UInt8(ascii: "r"))
        case 0x09:
            output.append(UInt8(ascii: "\\"))
            output.append(UInt8(ascii: "t"))
        case 0x00..<0x20:
            output.append(UInt8(ascii: "\\"))
            output.append(UInt8(ascii: "u"))
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "0"))
            output.append(HexDigits.digit(byte >> 4))
            output.append(HexDigits.digit(byte & 0x0F))
        default:
            output.append(byte)
        }
    }

    /// Appends `value` in decimal, exactly.
    ///
    /// A single digit (a score, a period, a status) is one append.
    public static func writeInteger(_ value: Int64, to output: inout some JSONOutput) {
        if value >= 0 && value < 10 {
            output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        DecimalDigits.withDigits(of: value) { output.append(contentsOf: $0) }
    }

    /// Appends `value` in its shortest round-tripping form; non-finite values become `null`,
    /// since JSON has no spelling for them.
    public static func writeDouble(_ value: Double, to output: inout some JSONOutput) {
        guard value.isFinite else {
            output.append(constant: "null")
            return
        }
        if value == value.rounded(.towardZero) && value.magnitude < 1e15 {
            writeInteger(Int64(value), to: &output)
            return
        }
        var text = value.description
        text.withUTF8 { output.append(contentsOf: $0) }
    }
}
