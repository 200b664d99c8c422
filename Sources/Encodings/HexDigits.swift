/// Lowercase hex, the one writer of it in PushBench (tokens, `apns-id`s, JSON escapes): eight
/// bytes become sixteen ASCII digits with a handful of 64-bit operations (SWAR), without a
/// lookup per digit, which is what lets one core write tens of millions of tokens per second.
public enum HexDigits {
    /// The sixteen digits of `word`, most significant first, stored at `destination` (any
    /// alignment).
    @inlinable @inline(__always)
    public static func store(_ word: UInt64, at destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: spread(UInt32(truncatingIfNeeded: word >> 32)).littleEndian, as: UInt64.self)
        destination.storeBytes(
            of: spread(UInt32(truncatingIfNeeded: word)).littleEndian,
            toByteOffset: 8,
            as: UInt64.self
        )
    }

    /// The two digits of `byte` at `destination`.
    @inlinable @inline(__always)
    public static func store(byte: UInt8, at destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: digit(byte >> 4), as: UInt8.self)
        destination.storeBytes(of: digit(byte & 0x0F), toByteOffset: 1, as: UInt8.self)
    }

    /// Eight ASCII digits of `value`, the first digit in the lowest byte.
    @inlinable @inline(__always)
    public static func spread(_ value: UInt32) -> UInt64 {
        // Put the value's bytes in reading order, then give every nibble a byte of its own.
        var v = UInt64(value.byteSwapped)
        v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF
        v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF
        v = ((v >> 4) & 0x000F_000F_000F_000F) | ((v & 0x000F_000F_000F_000F) << 8)
        // Nibbles 10 to 15 become 'a' to 'f': add '0', and 39 more where the nibble is above 9.
        let letters = ((v &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return v &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
    }

    @inlinable @inline(__always)
    public static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 48 + nibble : 87 + nibble
    }
}
