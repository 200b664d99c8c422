import Encodings

/// The `apns-id` request identifier: a canonical lowercase UUID (8-4-4-4-12 hex digits).
///
/// Senders set one per push so a response can be matched to its request; APNs echoes it, and
/// answers a malformed one with `400 BadMessageId`. Generation takes random bits from the
/// caller so the hot path does not touch the system generator.
public enum APNsID {
    /// The length of a canonical UUID string.
    public static let length = 36

    /// Writes a version-4 UUID made from `high` and `low` into `output` (36 bytes, lowercase).
    ///
    /// Every push writes one, so the digits go eight at a time (`HexDigits.spread`), each group
    /// stored whole between the dashes, rather than a nibble at a time.
    public static func write(high: UInt64, low: UInt64, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= length)
        let base = output.baseAddress!
        let versioned = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let variant = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        // Digits in reading order from the lowest byte: 8-4-4 from `versioned`, 4-12 from `variant`.
        let first = HexDigits.spread(UInt32(truncatingIfNeeded: versioned >> 32))
        let second = HexDigits.spread(UInt32(truncatingIfNeeded: versioned))
        let third = HexDigits.spread(UInt32(truncatingIfNeeded: variant >> 32))
        let fourth = HexDigits.spread(UInt32(truncatingIfNeeded: variant))
        base.storeBytes(of: first.littleEndian, as: UInt64.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: second).littleEndian, toByteOffset: 9, as: UInt32.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: second >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: third).littleEndian, toByteOffset: 19, as: UInt32.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: third >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
        base.storeBytes(of: fourth.littleEndian, toByteOffset: 28, as: UInt64.self)
        let dash = UInt8(ascii: "-")
        base.storeBytes(of: dash, toByteOffset: 8, as: UInt8.self)
        base.storeBytes(of: dash, toByteOffset: 13, as: UInt8.self)
        base.storeBytes(of: dash, toByteOffset: 18, as: UInt8.self)
        base.storeBytes(of: dash, toByteOffset: 23, as: UInt8.self)
    }

    /// A new random `apns-id` string from the system's generator (for places off the hot path).
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A new random `apns-id` string from `generator`: the mock's answers draw from a seeded one
    /// per connection, since the system's costs a `getrandom` call each.
    public static func random(using generator: inout some RandomNumberGenerator) -> String {
        String(unsafeUninitializedCapacity: length) { bytes in
            write(high: generator.next(), low: generator.next(), into: UnsafeMutableRawBufferPointer(bytes))
            return length
        }
    }

    /// Whether `value` is a canonical lowercase UUID, as APNs requires.
    ///
    /// Takes the header's `String` itself: the mock checks every push's `apns-id` twice, and a
    /// generic or copying check cost it a fifth of its CPU.
    public static func isValid(_ value: String) -> Bool {
        let bytes = value.utf8
        guard bytes.count == length else { return false }
        for (position, byte) in bytes.enumerated() {
            switch position {
            case 8, 13, 18, 23:
                if byte != UInt8(ascii: "-") { return false }
            default:
                let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
                let isLowerHex = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")
                if !(isDigit || isLowerHex) { return false }
            }
        }
        return true
    }

}
