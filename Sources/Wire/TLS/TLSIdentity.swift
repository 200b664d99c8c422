import COpenSSL
import Glibc

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

    /// The names every self-signed certificate carries: what a sender on the same machine dials.
    public static let loopbackNames = ["localhost", "127.0.0.1", "::1"]

    /// Makes a P-256 key and a self-signed certificate for `localhost`, `127.0.0.1`, `::1` and
    /// `alsoNaming` (host names or IP addresses, as `subjectAltNames` checks them), valid from an
    /// hour ago for `validDays`. A sender that verifies the certificate (as every PushBench sender
    /// does) reaches the mock only by a name it carries: a pod that dials a Kubernetes Service's
    /// name or another host's address needs that name here.
    /// - Throws: `CertificateError` when a name is neither an IP address nor a DNS name.
    public static func makeSelfSigned(validDays: Int = 7, alsoNaming names: [String] = []) throws -> TLSIdentity {
        let alternativeNames = try subjectAltNames(loopbackNames + names)
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
            (NID_subject_alt_name, alternativeNames),
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

extension TLSIdentity {
    /// `names` as an X.509 subjectAltName value: an IPv4 or IPv6 address as `IP:`, anything else as
    /// `DNS:`, each once. A DNS name takes letters, digits, `-`, `.` and a leading `*.` only, so no
    /// name can smuggle another entry in (the value is comma-separated).
    /// - Throws: `CertificateError` naming the first name that is neither.
    static func subjectAltNames(_ names: [String]) throws -> String {
        var seen = Set<String>()
        var entries: [String] = []
        for name in names where seen.insert(name.lowercased()).inserted {
            if isIPAddress(name) {
                entries.append("IP:" + name)
            } else if isDNSName(name) {
                entries.append("DNS:" + name)
            } else {
                throw CertificateError(
                    "'\(name)' is neither an IP address nor a DNS name (letters, digits, '-' and '.')",
                    isInput: true
                )
            }
        }
        return entries.joined(separator: ",")
    }

    /// Whether `text` is an IPv4 or IPv6 address, as `inet_pton` reads one.
    public static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    private static func isDNSName(_ text: String) -> Bool {
        let body = text.hasPrefix("*.") ? text.dropFirst(2) : Substring(text)
        let labels = body.split(separator: ".", omittingEmptySubsequences: false)
        return !body.isEmpty && body.utf8.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                    && label.unicodeScalars.allSatisfy {
                        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-")
                    }
            }
    }
}

/// The mock's TLS identity could not be made.
public struct CertificateError: Error, CustomStringConvertible {
    let step: String
    /// Whether the caller's input (a name to certify) was at fault, rather than OpenSSL.
    public let isInput: Bool
    init(_ step: String, isInput: Bool = false) {
        self.step = step
        self.isInput = isInput
        ERR_clear_error()
    }
    public var description: String {
        isInput
            ? "cannot name it in the mock's certificate: \(step)"
            : "could not make the mock's self-signed certificate (\(step))"
    }
}
