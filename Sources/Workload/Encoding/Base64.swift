/// Standard base64 with padding (RFC 4648 §4), the form APNs gives channel ids in.
///
/// `Workload` depends on nothing, Foundation included, so it carries these few lines itself.
enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8
    )

    /// Length of the base64 form of `byteCount` bytes.
    static func encodedLength(of byteCount: Int) -> Int { (byteCount + 2) / 3 * 4 }

    /// Writes the base64 form of `bytes` at `destination`, which holds `encodedLength` bytes.
    static func write(_ bytes: UnsafeRawBufferPointer, to destination: UnsafeMutableRawPointer) {
        var input = 0
        var output = 0
        while input < bytes.count {
            let available = min(3, bytes.count - input)
            var group = UInt32(bytes[input]) << 16
            if available > 1 { group |= UInt32(bytes[input + 1]) << 8 }
            if available > 2 { group |= UInt32(bytes[input + 2]) }
            for position in 0..<4 {
                let sextet = Int(group >> UInt32(18 - 6 * position) & 63)
                let digit = position <= available ? alphabet[sextet] : UInt8(ascii: "=")
                destination.storeBytes(of: digit, toByteOffset: output + position, as: UInt8.self)
            }
            input += 3
            output += 4
        }
    }
}
