/// The body digests of `TrafficTable`: nearly every push's is its own, so rather than stored
/// once per value they are kept as the 64-bit numbers their 16 hex digits print (`FNV1a.hex`),
/// 8 bytes a row; an empty digest, or one that is not such a number, is kept as text.
struct DigestColumn: Sendable {
    private var numbers: [UInt64] = []
    /// Rows whose digest is not a 16-digit lowercase hex number, with their text.
    private var other: [Int: String] = [:]

    subscript(row: Int) -> String {
        if let text = other[row] { return text }
        let hex = String(numbers[row], radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    mutating func append(_ digest: String) {
        let isLowercaseHex = digest.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        if digest.utf8.count == 16, isLowercaseHex, let number = UInt64(digest, radix: 16) {
            numbers.append(number)
        } else {
            other[numbers.count] = digest
            numbers.append(0)
        }
    }
}
