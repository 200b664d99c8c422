/// FNV-1a, 64 bits: a fast, stable digest of short byte strings, for telling them apart (a
/// provider token, a payload) without keeping or writing them. Not a cryptographic hash.
public enum FNV1a {
    /// The offset basis, the digest of no bytes.
    public static let basis: UInt64 = 0xCBF2_9CE4_8422_2325
    /// The FNV prime.
    public static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// The digest of `bytes`.
    @inlinable
    public static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = basis
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
        return hash
    }

    /// The digest of `bytes` as sixteen lowercase hex digits. Inlinable, so the hash loop is
    /// specialized for the caller's sequence: unspecialized, it was most of the cost of recording
    /// a push in the mock.
    @inlinable
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        hex(digest: hash(bytes))
    }

    /// A digest already taken, as `hex(_:)` writes it.
    @inlinable
    public static func hex(digest: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            HexDigits.store(digest, at: UnsafeMutableRawPointer(buffer.baseAddress!))
            return 16
        }
    }
}
