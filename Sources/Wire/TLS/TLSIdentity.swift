import COpenSSL

/// A server's TLS identity: a certificate (chain) and its private key, both PEM.
///
/// The mock usually makes a throw-away one at start-up (`makeSelfSigned`), in memory and never
/// written to disk; clients trust it by taking `certificatePEM` as their only CA (libcurl's
/// `CAINFO_BLOB`, curl's `--cacert`), so TLS verification stays on even against the mock.
public struct TLSIdentity: Sendable {
    /// The certificate chain, PEM.
    public let certificatePEM: [UInt8]
    /// The private key, PEM. Handed to the TLS library in memory only: never print it.
    public let privateKeyPEM: [UInt8]

    /// Wraps an existing certificate and key.
    public init(certificatePEM: [UInt8], privateKeyPEM: [UInt8]) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// Makes a P-256 key and a self-signed certificate for `localhost`, `127.0.0.1` and `::1`,
    /// valid from an hour ago for `validDays`.
    public static func makeSelfSigned(validDays: Int = 7) throws -> TLSIdentity {
        let key = try ES256PrivateKey()
        guard let certificate = X509_new() else { throw CertificateError("X509_new") }
        defer { X509_free(certificate) }
        var serial = [UInt8](repeating: 0, count: 16)
        _ = RAND_bytes(&serial, Int32(serial.count))
        serial[0] &= 0x7F
        guard X509_set_version(certificate, 2) == 1,
            let serialNumber = BN_bin2bn(serial, Int32(serial.count), nil)
        else { throw CertificateError("setting the version and serial") }
        defer { BN_free(serialNumber) }
        guard BN_to_ASN1_INTEGER(serialNumber, X509_get_serialNumber(certificate)) != nil,
            X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), validDays * 86_400) != nil
        else { throw CertificateError("setting the serial and validity") }

        guard let name = X509_get_subject_name(certificate),
            pb_x509_name_add_text(name, "O", "PushBench mock APNs") == 1,
            pb_x509_name_add_text(name, "CN", "localhost") == 1,
            X509_set_issuer_name(certificate, name) == 1
        else { throw CertificateError("setting the subject") }

        for (nid, value) in [
            (NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1"),
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_key_usage, "critical,digitalSignature,keyCertSign"),
            (NID_ext_key_usage, "serverAuth"),
        ] {
            guard let extensionValue = X509V3_EXT_conf_nid(nil, nil, nid, value) else {
                throw CertificateError("building extension \(nid)")
            }
            defer { X509_EXTENSION_free(extensionValue) }
            guard X509_add_ext(certificate, extensionValue, -1) == 1 else { throw CertificateError("adding extension") }
        }
        guard X509_set_pubkey(certificate, key.key) == 1, X509_sign(certificate, key.key, EVP_sha256()) > 0 else {
            throw CertificateError("signing the certificate")
        }
        guard let bio = BIO_new(BIO_s_mem()) else { throw CertificateError("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, certificate) == 1 else { throw CertificateError("PEM_write_bio_X509") }
        return TLSIdentity(certificatePEM: drainMemoryBIO(bio), privateKeyPEM: try key.pkcs8PEM())
    }
}
/// The mock's TLS identity could not be made.
public struct CertificateError: Error, CustomStringConvertible {
    let step: String
    init(_ step: String) {
        self.step = step
        ERR_clear_error()
    }
    public var description: String { "could not make the mock's self-signed certificate (\(step))" }
}
