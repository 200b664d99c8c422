/// How tokens are laid out in a file: fixed-length records, so a reader can seek to token `i`
/// and shard files concatenate into the whole file.
public enum TokenFormat: String, Sendable, CaseIterable {
    /// One token per line in lowercase hex, `\n`-terminated: what `--tokens FILE` reads and
    /// what most push providers export.
    case hex
    /// The raw token bytes back to back, no separators: half the size, for tools that read
    /// fixed-size records.
    case binary
    /// One token per line in standard base64, as APNs writes broadcast channel ids.
    case base64

    /// Bytes one token takes in this format.
    public func recordLength(of tokens: TokenSet) -> Int {
        switch self {
        case .hex: tokens.hexLength + 1
        case .binary: tokens.byteCount
        case .base64: tokens.base64Length + 1
        }
    }

    /// Writes tokens `indices` of `tokens` back to back at `destination`, which must hold
    /// `indices.count × recordLength(of:)` bytes.
    public func write(_ indices: Range<Int>, of tokens: TokenSet, to destination: UnsafeMutableRawPointer) {
        precondition(indices.lowerBound >= 0 && indices.upperBound <= tokens.count, "indices outside the set")
        let record = recordLength(of: tokens)
        var offset = 0
        switch self {
        case .hex:
            for index in indices {
                tokens.writeHexUnchecked(at: index, to: destination + offset)
                destination.storeBytes(of: UInt8(ascii: "\n"), toByteOffset: offset + record - 1, as: UInt8.self)
                offset += record
            }
        case .binary:
            for index in indices {
                tokens.writeBytes(at: index, to: destination + offset)
                offset += record
            }
        case .base64:
            for index in indices {
                tokens.writeBase64(at: index, to: destination + offset)
                destination.storeBytes(of: UInt8(ascii: "\n"), toByteOffset: offset + record - 1, as: UInt8.self)
                offset += record
            }
        }
    }
}
