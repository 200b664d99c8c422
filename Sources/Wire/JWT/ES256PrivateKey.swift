import COpenSSL

/// A P-256 private key that signs APNs provider tokens (ES256).
///
/// Loaded from an Apple `.p8` file (PKCS#8 PEM) or generated for runs against the mock. The key
/// is immutable after creation and every signer has its own libcrypto context, so one instance
/// is safe to share across threads.
public final class ES256PrivateKey: @unchecked Sendable {
    let key: OpaquePointer

    /// Loads a PKCS#8 PEM private key, as Apple's `.p8` download contains.
    ///
    /// - Throws: `ES256KeyError` when the text is not a PEM private key or not on P-256. The
    ///   error never contains key material.
    public init(pem: [UInt8]) throws {
        let loaded = try withMemoryBIO(pem) { bio in PEM_read_bio_PrivateKey(bio, nil, nil, nil) }
        guard let loaded else {
            ERR_clear_error()
            throw ES256KeyError.notAPrivateKey
        }
        guard isP256(loaded) else {
            EVP_PKEY_free(loaded)
            throw ES256KeyError.notP256
        }
        key = loaded
    }

    /// Generates a fresh P-256 key (for runs against the mock; it never leaves memory).
    public init() throws {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLError("creating an EC key context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &generated) == 1,
            let generated
        else {
            throw OpenSSLError("generating a P-256 key")
        }
        key = generated
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Signs `message` with ECDSA over SHA-256 and returns JOSE's raw 64-byte `r || s`.
    ///
    /// Prepares a libcrypto context for this one signature; a thread that signs often keeps an
    /// `ES256Signer` instead.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        try ES256Signer(key: self).sign(message)
    }

    /// The public half as a SubjectPublicKeyInfo PEM, which the mock verifies tokens with.
    public func publicKeyPEM() throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("creating a memory BIO") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PUBKEY(bio, key) == 1 else { throw OpenSSLError("writing a public key") }
        return drainMemoryBIO(bio)
    }

    /// The key as unencrypted PKCS#8 PEM, for handing to a TLS library in memory. Never print,
    /// log or write these bytes.
    public func pkcs8PEM() throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("creating a memory BIO") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            throw OpenSSLError("serialising a private key")
        }
        return drainMemoryBIO(bio)
    }
}

/// Why a key file was refused. The cases carry no key material, so they are safe to print.
public enum ES256KeyError: Error, Equatable, CustomStringConvertible {
    case notAPrivateKey
    case notAPublicKey
    case notP256

    public var description: String {
        switch self {
        case .notAPrivateKey: "not a PEM private key (expected Apple's PKCS#8 .p8 file)"
        case .notAPublicKey: "not a PEM public key or private key"
        case .notP256: "the key is not an elliptic-curve key on P-256, which ES256 requires"
        }
    }
}

/// Whether `key` is an EC key on the P-256 curve.
func isP256(_ key: OpaquePointer) -> Bool {
    guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return false }
    var name = [CChar](repeating: 0, count: 64)
    var length = 0
    guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return false }
    let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return group == "prime256v1" || group == "P-256"
}
