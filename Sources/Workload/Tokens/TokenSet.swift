import Encodings

/// A reproducible population of synthetic tokens of one kind, produced on demand.
///
/// Token `i` is a pure function of `(seed, kind, i)`: a ten-million-token run keeps no token list
/// in memory, two processes with the same seed address the same devices, and a shard can produce
/// its part of the population without the rest. A token is `byteCount` random bytes, written as
/// lowercase hex (the form `/3/device/<token>` takes), as raw bytes, or as base64 (channel ids).
public struct TokenSet: Sendable {
    /// The seed every token is derived from.
    public let seed: UInt64
    /// Which population this is.
    public let kind: TokenKind
    /// How many tokens the set holds.
    public let count: Int
    /// Raw token length in bytes (32 today; Apple says not to assume it).
    public let byteCount: Int

    /// Creates a set of `count` tokens of `kind`, `byteCount` bytes each (the kind's default when
    /// `nil`), derived from `seed`.
    public init(seed: UInt64, kind: TokenKind = .device, count: Int, byteCount: Int? = nil) {
        precondition(count >= 0, "token count must not be negative")
        let length = byteCount ?? kind.defaultByteCount
        precondition(length > 0, "token length must be positive")
        self.seed = seed
        self.kind = kind
        self.count = count
        self.byteCount = length
    }

    /// Length of a token's hex form.
    public var hexLength: Int { byteCount * 2 }

    /// Writes the `hexLength` hex digits of token `index` at `destination`.
    @inlinable
    public func writeHex(at index: Int, to destination: UnsafeMutableRawPointer) {
        precondition(index >= 0 && index < count, "token index \(index) outside 0..<\(count)")
        writeHexUnchecked(at: index, to: destination)
    }

    /// `writeHex` without the bounds check, for loops that checked their range once.
    @inlinable
    func writeHexUnchecked(at index: Int, to destination: UnsafeMutableRawPointer) {
        var random = generator(for: index)
        var offset = 0
        let wholeWords = byteCount / 8
        for _ in 0..<wholeWords {
            HexDigits.store(random.next(), at: destination + offset)
            offset += 16
        }
        let tail = byteCount % 8
        if tail > 0 {
            let word = random.next()
            for byte in 0..<tail {
                HexDigits.store(
                    byte: UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * byte)),
                    at: destination + offset
                )
                offset += 2
            }
        }
    }

    /// Appends the hex form of token `index` to `output`.
    public func appendHex(at index: Int, to output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: hexLength) { hex in
            writeHex(at: index, to: UnsafeMutableRawPointer(hex.baseAddress!))
            output.append(contentsOf: UnsafeBufferPointer(hex))
        }
    }

    /// The hex form of token `index`.
    public func hex(at index: Int) -> String {
        String(unsafeUninitializedCapacity: hexLength) { buffer in
            writeHex(at: index, to: UnsafeMutableRawPointer(buffer.baseAddress!))
            return hexLength
        }
    }

    /// Writes the `byteCount` raw bytes of token `index` at `destination`.
    public func writeBytes(at index: Int, to destination: UnsafeMutableRawPointer) {
        precondition(index >= 0 && index < count, "token index \(index) outside 0..<\(count)")
        var random = generator(for: index)
        var offset = 0
        while offset < byteCount {
            let word = random.next().bigEndian
            let length = min(8, byteCount - offset)
            withUnsafeBytes(of: word) { (destination + offset).copyMemory(from: $0.baseAddress!, byteCount: length) }
            offset += length
        }
    }

    /// The raw bytes of token `index`.
    public func bytes(at index: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            writeBytes(at: index, to: UnsafeMutableRawPointer(buffer.baseAddress!))
            initialized = byteCount
        }
    }

    /// Length of a token's base64 form.
    public var base64Length: Int { Base64.encodedLength(of: byteCount, .standard) }

    /// Writes the `base64Length` characters of token `index` in base64, the form of broadcast
    /// channel ids, at `destination`.
    public func writeBase64(at index: Int, to destination: UnsafeMutableRawPointer) {
        withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: 8) { raw in
            writeBytes(at: index, to: raw.baseAddress!)
            Base64.write(UnsafeRawBufferPointer(raw), to: destination, .standard)
        }
    }

    /// Token `index` in base64.
    public func base64(at index: Int) -> String {
        String(unsafeUninitializedCapacity: base64Length) { buffer in
            writeBase64(at: index, to: UnsafeMutableRawPointer(buffer.baseAddress!))
            return base64Length
        }
    }

    @inlinable @inline(__always)
    func generator(for index: Int) -> SplitMix64 {
        SplitMix64(seed: seed ^ kind.seedDomain, index: UInt64(index))
    }
}
