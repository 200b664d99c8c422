import Foundation

/// Reads a file of device tokens, one hex token per line (`#` comments and blank lines allowed):
/// your devices' activity tokens for runs toward real APNs (`run --tokens`), or the tokens a mock
/// treats as unregistered (`mock --unregistered-tokens`).
public enum DeviceTokensFile {
    /// The tokens, lower-case hex bytes.
    /// - Throws: `WorkloadError` naming the file and the first bad line, `InputFileError` for one
    ///   that cannot be read.
    public static func read(_ path: String) throws -> [[UInt8]] {
        let text = String(decoding: try InputFile.bytes(path, what: "tokens file"), as: UTF8.self)
        var tokens: [[UInt8]] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let hex = Array(line.lowercased().utf8)
            let isHex = hex.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
            guard isHex, hex.count >= 16, hex.count % 2 == 0 else {
                throw WorkloadError("\(path) line \(number + 1): not a hex device token (an even number of 0-9a-f)")
            }
            tokens.append(hex)
        }
        guard !tokens.isEmpty else { throw WorkloadError("\(path) holds no tokens") }
        return tokens
    }
}
