import COpenSSL

/// A libcrypto failure, with the library's own description of the first queued error.
public struct OpenSSLError: Error, CustomStringConvertible {
    /// What PushBench was doing.
    public let operation: String
    /// libcrypto's error string, if it queued one.
    public let detail: String

    /// Captures (and clears) libcrypto's error queue for `operation`.
    init(_ operation: String) {
        self.operation = operation
        let code = ERR_get_error()
        if code == 0 {
            detail = "no detail from libcrypto"
        } else {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            detail = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        ERR_clear_error()
    }

    public var description: String { "\(operation): \(detail)" }
}

/// Reads everything pending in a memory BIO (`BIO_get_mem_data` is a macro Swift cannot call).
func drainMemoryBIO(_ bio: OpaquePointer) -> [UInt8] {
    let pending = Int(BIO_ctrl_pending(bio))
    var bytes = [UInt8](repeating: 0, count: pending)
    let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
    return Array(bytes.prefix(max(0, Int(read))))
}

/// Runs `body` with a read-only memory BIO over `bytes`.
func withMemoryBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { raw in
        guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
            throw OpenSSLError("creating a memory BIO")
        }
        defer { BIO_free(bio) }
        return try body(bio)
    }
}

/// SHA-256 of `message`.
func sha256(_ message: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
    message.withUnsafeBytes { raw in
        _ = SHA256(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &digest)
    }
    return digest
}
