import COpenSSL

/// A P-256 public key that verifies ES256 provider tokens, as APNs (and the mock) does.
public final class ES256PublicKey: @unchecked Sendable {
    let key: OpaquePointer

    /// Loads a SubjectPublicKeyInfo PEM, or derives the public key from a private-key PEM
    /// (so the mock can be pointed at the same `.p8` the sender uses).
    ///
    /// The key is checked before it is stored: a class whose stored properties are all set runs
    /// its `deinit` when its initializer throws, so a key freed here and stored would be freed
    /// twice, and libcrypto then spins on the freed key's lock.
    public init(pem: [UInt8]) throws {
        let loaded: OpaquePointer
        if let publicKey = try withMemoryBIO(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) {
            loaded = publicKey
        } else {
            ERR_clear_error()
            guard let privateKey = try withMemoryBIO(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
                ERR_clear_error()
                throw ES256KeyError.notAPublicKey
            }
            loaded = privateKey
        }
        guard isP256(loaded) else {
            EVP_PKEY_free(loaded)
            throw ES256KeyError.notP256
        }
        key = loaded
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Whether `signature` (raw 64-byte `r || s`) is a valid ES256 signature of `message`.
    /// A DER signature, or any other length, is invalid, as it is for APNs.
    public func verify(signature: [UInt8], of message: [UInt8]) -> Bool {
        guard let der = ES256Signature.der(fromRaw: signature) else { return false }
        let digest = sha256(message)
        guard let context = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_init(context) == 1 else { return false }
        let result = EVP_PKEY_verify(context, der, der.count, digest, digest.count)
        ERR_clear_error()
        return result == 1
    }
}

/// Conversions between libcrypto's DER ECDSA signatures and JOSE's raw `r || s`.
enum ES256Signature {
    static let rawLength = 64

    /// The longest DER encoding of a P-256 ECDSA signature: a sequence of two 33-byte integers.
    static let maxDERLength = 72

    /// Reads `SEQUENCE { INTEGER r, INTEGER s }` into 32-byte big-endian halves, without
    /// allocating anything but the result; `nil` for anything else.
    static func raw(fromDER der: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var raw = [UInt8](repeating: 0, count: rawLength)
        var cursor = 2
        for half in 0..<2 {
            guard cursor + 2 <= der.count, der[cursor] == 0x02 else { return nil }
            var length = Int(der[cursor + 1])
            cursor += 2
            guard length >= 1, cursor + length <= der.count else { return nil }
            while length > 32, der[cursor] == 0 {  // the sign byte of a high-bit integer
                cursor += 1
                length -= 1
            }
            guard length <= 32 else { return nil }
            let end = half * 32 + 32
            for offset in 0..<length { raw[end - length + offset] = der[cursor + offset] }
            cursor += length
        }
        return cursor == der.count ? raw : nil
    }

    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        raw.withUnsafeBytes { bytes -> [UInt8]? in
            guard bytes.count == rawLength, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                return nil
            }
            guard let signature = ECDSA_SIG_new() else { return nil }
            defer { ECDSA_SIG_free(signature) }
            guard let r = BN_bin2bn(base, 32, nil), let s = BN_bin2bn(base + 32, 32, nil) else { return nil }
            guard ECDSA_SIG_set0(signature, r, s) == 1 else {
                BN_free(r)
                BN_free(s)
                return nil
            }
            var output: UnsafeMutablePointer<UInt8>? = nil
            let length = i2d_ECDSA_SIG(signature, &output)
            guard length > 0, let output else { return nil }
            defer { pb_openssl_free(output) }
            return Array(UnsafeBufferPointer(start: output, count: Int(length)))
        }
    }
}
