import COpenSSL

/// The mock's CA as the JVM trusts it: a PKCS#12 truststore, named by `javax.net.ssl.trustStore`
/// in `JAVA_TOOL_OPTIONS`, which every JVM reads at start-up. The JVM reads no PEM bundle and no
/// `SSL_CERT_FILE`, and takes a certificate in a PKCS#12 file as trusted only with Oracle's
/// trusted-key-usage attribute, as keytool writes it; OpenSSL 3.0 has no option for that
/// attribute, so the store is built here (`pb_pkcs12_truststore`).
enum JavaTruststore {
    /// The store's password: it keys the store's integrity check, not a secret (the store holds
    /// public certificates only).
    static let password = "pushbench"

    /// A truststore holding every certificate of `pem`.
    /// - Throws: `SealError.files` when libcrypto cannot build it.
    static func store(trusting pem: [UInt8]) throws(SealError) -> [UInt8] {
        var der: UnsafeMutablePointer<UInt8>?
        let length = pem.withUnsafeBufferPointer {
            pb_pkcs12_truststore($0.baseAddress, Int32($0.count), password, &der)
        }
        guard length > 0, let der else { throw .files("cannot build the JVM's truststore from the mock's certificate") }
        defer { pb_openssl_free(der) }
        return Array(UnsafeBufferPointer(start: der, count: Int(length)))
    }

    /// `JAVA_TOOL_OPTIONS` naming the store at `path`, after the caller's own options.
    static func toolOptions(path: String, existing: String?) -> String {
        let options =
            "-Djavax.net.ssl.trustStore=\(path) -Djavax.net.ssl.trustStoreType=PKCS12 "
            + "-Djavax.net.ssl.trustStorePassword=\(password)"
        guard let existing, !existing.isEmpty else { return options }
        return existing + " " + options
    }
}
