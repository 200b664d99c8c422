import COpenSSL

/// Checks of certificate and key files before any work starts: a file given where a certificate
/// or a private key belongs that is not one is the user's bad input, found at once, not a TLS
/// failure after the first connection.
extension TLSIdentity {
    /// The number of PEM certificates `pem` holds; throws when it holds none, so a key, a CSR or
    /// any other text given as a CA file or a certificate chain is refused where it is read.
    /// Nothing of the file's contents goes into the error.
    @discardableResult
    public static func checkCertificates(_ pem: [UInt8]) throws(TLSFileError) -> Int {
        let count = pem.withUnsafeBytes { bytes -> Int in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return 0 }
            defer { BIO_free(bio) }
            var count = 0
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                X509_free(certificate)
                count += 1
            }
            return count
        }
        ERR_clear_error()
        guard count > 0 else { throw .notACertificate }
        return count
    }

    /// Throws unless the certificate chain is PEM certificates and the key is the PEM private key
    /// of the first of them, as a TLS server needs.
    public func check() throws(TLSFileError) {
        try Self.checkCertificates(certificatePEM)
        let pair = certificatePEM.withUnsafeBytes { certificateBytes in
            privateKeyPEM.withUnsafeBytes { keyBytes -> (certificate: OpaquePointer?, key: OpaquePointer?) in
                let certificateBIO = BIO_new_mem_buf(certificateBytes.baseAddress, Int32(certificateBytes.count))
                let keyBIO = BIO_new_mem_buf(keyBytes.baseAddress, Int32(keyBytes.count))
                defer {
                    BIO_free(certificateBIO)
                    BIO_free(keyBIO)
                }
                return (
                    certificateBIO.flatMap { PEM_read_bio_X509($0, nil, nil, nil) },
                    keyBIO.flatMap { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
                )
            }
        }
        defer {
            X509_free(pair.certificate)
            EVP_PKEY_free(pair.key)
            ERR_clear_error()
        }
        guard let certificate = pair.certificate else { throw .notACertificate }
        guard let key = pair.key else { throw .notAPrivateKey }
        guard X509_check_private_key(certificate, key) == 1 else { throw .keyDoesNotMatch }
    }
}

/// Why a certificate or TLS key file was refused; carries none of the file's contents.
public enum TLSFileError: Error, Equatable, CustomStringConvertible {
    case notACertificate
    case notAPrivateKey
    case keyDoesNotMatch

    public var description: String {
        switch self {
        case .notACertificate: "not a PEM certificate (expected -----BEGIN CERTIFICATE-----)"
        case .notAPrivateKey: "not a PEM private key"
        case .keyDoesNotMatch: "the private key is not the certificate's"
        }
    }
}
