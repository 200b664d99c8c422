import Foundation

/// Runs `openssl speed ecdsap256`, the reference for how fast this machine signs P-256.
public enum OpenSSLSpeed {
    /// Why the reference could not be measured.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Signatures per second with `threads` processes (`-multi`), measured for `seconds`.
    ///
    /// - Throws: `Failure` when `openssl` is missing, fails, or prints something unexpected.
    public static func signaturesPerSecond(threads: Int, seconds: Int) throws -> Double {
        guard let openssl = ExecutableSearch.onPath("openssl") else {
            throw Failure(description: "openssl is not on PATH")
        }
        var arguments = ["speed", "-seconds", "\(seconds)"]
        if threads > 1 { arguments += ["-multi", "\(threads)"] }
        arguments.append("ecdsap256")
        let process = Process()
        process.executableURL = openssl
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl speed exited with status \(process.terminationStatus)")
        }
        guard let rate = parseSignaturesPerSecond(text) else {
            throw Failure(description: "openssl speed printed no nistp256 sign/s figure")
        }
        return rate
    }

    /// The sign/s column of the `nistp256` row of `openssl speed`'s summary table:
    /// ` 256 bits ecdsa (nistp256)   0.0000s   0.0001s  25646.2   7706.4`.
    public static func parseSignaturesPerSecond(_ output: String) -> Double? {
        for line in output.split(separator: "\n") where line.contains("ecdsa (nistp256)") {
            let fields = line.split(separator: " ")
            guard fields.count >= 4, let sign = Double(fields[fields.count - 2]) else { continue }
            return sign
        }
        return nil
    }
}
