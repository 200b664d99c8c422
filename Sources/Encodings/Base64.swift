/// Base64 in the two forms PushBench meets (RFC 4648): the standard alphabet with padding, the
/// form APNs gives broadcast channel ids in, and base64url without padding, the encoding of
/// every JWT segment. One encoder, two alphabets.
public enum Base64 {
    /// Which of RFC 4648's forms.
    public enum Alphabet: Sendable {
        /// §4: `+` and `/`, padded with `=` to a multiple of four.
        case standard
        /// §5: `-` and `_`, unpadded.
        case url

        @usableFromInline
        var symbols: [UInt8] { self == .standard ? Base64.standardSymbols : Base64.urlSymbols }
    }

    @usableFromInline
    static let standardSymbols: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8
    )
    @usableFromInline
    static let urlSymbols: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let urlReverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (value, symbol) in urlSymbols.enumerated() { table[Int(symbol)] = Int8(value) }
        return table
    }()

    /// Length of the encoded form of `byteCount` bytes.
    public static func encodedLength(of byteCount: Int, _ alphabet: Alphabet) -> Int {
        switch alphabet {
        case .standard: (byteCount + 2) / 3 * 4
        case .url: (byteCount * 4 + 2) / 3
        }
    }

    /// Writes the encoded form of `bytes` at `destination`, which holds `encodedLength` bytes.
    public static func write(
        _ bytes: UnsafeRawBufferPointer,
        to destination: UnsafeMutableRawPointer,
        _ alphabet: Alphabet
    ) {
        let symbols = alphabet.symbols
        var input = 0
        var output = 0
        while input < bytes.count {
            let available = min(3, bytes.count - input)
            var group = UInt32(bytes[input]) << 16
            if available > 1 { group |= UInt32(bytes[input + 1]) << 8 }
            if available > 2 { group |= UInt32(bytes[input + 2]) }
            let digits = alphabet == .standard ? 4 : available + 1
            for position in 0..<digits {
                let sextet = Int(group >> UInt32(18 - 6 * position) & 63)
                let digit = position <= available ? symbols[sextet] : UInt8(ascii: "=")
                destination.storeBytes(of: digit, toByteOffset: output + position, as: UInt8.self)
            }
            input += 3
            output += digits
        }
    }

    /// The encoded form of `bytes`.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ alphabet: Alphabet) -> String {
        let input = Array(bytes)
        let length = encodedLength(of: input.count, alphabet)
        return String(unsafeUninitializedCapacity: length) { buffer in
            input.withUnsafeBytes { write($0, to: UnsafeMutableRawPointer(buffer.baseAddress!), alphabet) }
            return length
        }
    }

    /// Decodes unpadded base64url; `nil` for any other character or an impossible length.
    public static func decodeURL<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        let symbols = Array(text.utf8)
        guard symbols.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(symbols.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            let value = urlReverse[Int(symbol)]
            guard value >= 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }
}
