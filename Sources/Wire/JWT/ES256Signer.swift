import COpenSSL

/// Signs ES256 messages on one thread with a libcrypto context that is prepared once.
///
/// Creating and initialising an `EVP_PKEY_CTX` for every signature costs about a tenth of the
/// signature itself; `openssl speed ecdsap256` keeps one context, and so does this type, so the
/// two can be compared. A context must not be used by two threads at once: keep one signer per
/// thread (the key itself is shared).
public final class ES256Signer {
    /// The key this signer uses.
    public let key: ES256PrivateKey
    private let context: OpaquePointer
    private var der = [UInt8](repeating: 0, count: ES256Signature.maxDERLength)

    /// Prepares a signing context for `key`.
    public init(key: ES256PrivateKey) throws {
        guard let context = EVP_PKEY_CTX_new(key.key, nil) else { throw OpenSSLError("creating a signing context") }
        guard EVP_PKEY_sign_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw OpenSSLError("preparing an ES256 signature")
        }
        self.key = key
        self.context = context
    }

    deinit {
        EVP_PKEY_CTX_free(context)
    }

    /// Signs `message` with ECDSA over SHA-256 and returns JOSE's raw 64-byte `r || s`
    /// (not DER, which APNs refuses).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        let digest = sha256(message)
        var derLength = der.count
        let signed = der.withUnsafeMutableBufferPointer { buffer in
            EVP_PKEY_sign(context, buffer.baseAddress, &derLength, digest, digest.count)
        }
        guard signed == 1 else { throw OpenSSLError("signing with ES256") }
        guard
            let raw = der.withUnsafeBufferPointer({
                ES256Signature.raw(fromDER: UnsafeBufferPointer(rebasing: $0.prefix(derLength)))
            })
        else {
            throw OpenSSLError("reading libcrypto's ECDSA signature")
        }
        return raw
    }
}
