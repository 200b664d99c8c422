/// A reproducible population of synthetic APNs device tokens, produced on demand.
///
/// Token `i` is a pure function of `(seed, i)`: a million-token run keeps no token list in
/// memory, and two processes with the same seed address the same devices. Tokens are
/// `byteCount` random bytes written as lowercase hex, the form APNs expects in
/// `/3/device/<token>` (32 bytes today; Apple says not to assume the length, so it is a parameter).
public struct DeviceTokenSet: Sendable {
    /// The seed every token is derived from.
    public let seed: UInt64
    /// How many tokens the set holds.
    public let count: Int
    /// Raw token length in bytes; the hex form is twice as long.
    public let byteCount: Int

    /// Creates a set of `count` tokens of `byteCount` bytes derived from `seed`.
    public init(seed: UInt64, count: Int, byteCount: Int = 32) {
        precondition(count >= 0, "token count must not be negative")
        precondition(byteCount > 0, "token length must be positive")
        self.seed = seed
        self.count = count
        self.byteCount = byteCount
    }

    /// Appends the hex form of token `index` to `output` without allocating an intermediate string.
    public func appendHexToken(at index: Int, to output: inout [UInt8]) {
        precondition(index >= 0 && index < count, "token index \(index) outside 0..<\(count)")
        var random = SplitMix64(seed: seed, index: UInt64(index))
        var remaining = byteCount
        while remaining > 0 {
            let word = random.next()
            for shift in stride(from: 56, through: 0, by: -8) where remaining > 0 {
                let byte = UInt8(truncatingIfNeeded: word >> UInt64(shift))
                output.append(HexDigits.lowercase[Int(byte >> 4)])
                output.append(HexDigits.lowercase[Int(byte & 0x0F)])
                remaining -= 1
            }
        }
    }

    /// The hex form of token `index`.
    public func hexToken(at index: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount * 2)
        appendHexToken(at: index, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// ASCII hex digits, shared by every hex writer in the module.
enum HexDigits {
    static let lowercase: [UInt8] = Array("0123456789abcdef".utf8)
}
