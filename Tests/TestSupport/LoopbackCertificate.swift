import Foundation

/// A self-signed P-256 certificate for 127.0.0.1 and its key, made by openssl: what a test
/// server presents when the client must trust a certificate fixed before the server starts (a
/// restarted mock, nginx, a mock a running service already trusts).
public struct LoopbackCertificate {
    /// The certificate (PEM) and its private key (PEM).
    public let certificatePath: String
    public let keyPath: String

    /// Makes the pair at `certificatePath` and `keyPath`.
    /// - Throws: `LoopbackCertificateError` when openssl is missing or fails.
    public init(certificatePath: String, keyPath: String) throws {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        guard let openssl = ExternalProgram.onPath("openssl") else {
            throw LoopbackCertificateError(message: "openssl is not on PATH")
        }
        let made = try openssl.run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", keyPath,
            "-out", certificatePath, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        guard made.status == 0 else { throw LoopbackCertificateError(message: "openssl req failed: \(made.stderr)") }
    }
}

/// Why a loopback certificate could not be made.
public struct LoopbackCertificateError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
