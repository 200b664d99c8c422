/// Lowercase ASCII hex digits, for every hex writer in `Wire`.
enum ASCIIHex {
    static let lowercase: [UInt8] = Array("0123456789abcdef".utf8)
}
