import Foundation
import Wire
import Workload

/// Reads key and certificate files with errors that name the file and never echo its contents.
enum KeyFile {
    static func signingKey(_ path: String) throws -> ES256PrivateKey {
        do {
            let pem = try InputFile.bytes(path, what: "signing key")
            warnIfOthersCanRead(path, what: "signing key")
            return try ES256PrivateKey(pem: pem)
        } catch let error as ES256KeyError {
            throw CommandLineError("signing key \(path) is unusable: \(error)")
        }
    }

    /// Warns (without refusing: a laptop's test key may be shared on purpose) when a private
    /// key can be read by every user of the machine, as an Apple signing key never should.
    static func warnIfOthersCanRead(_ path: String, what: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o004 != 0
        else { return }
        Console.err(
            "warning: \(what) \(path) is readable by every user (mode \(String(mode & 0o777, radix: 8))): chmod 600 it"
        )
    }

    /// The public half of the private key at `path`: for a command that hands the key to a
    /// sender, which signs with it, so a public key (or any key a sender cannot sign ES256
    /// with) is refused before work.
    static func publicHalf(of path: String) throws -> ES256PublicKey {
        let privateKey = try signingKey(path)
        return try ES256PublicKey(pem: try privateKey.publicKeyPEM())
    }

    static func verificationKey(_ path: String) throws -> ES256PublicKey {
        do {
            let pem = try InputFile.bytes(path, what: "auth key")
            if String(decoding: pem, as: UTF8.self).contains("PRIVATE KEY") {
                warnIfOthersCanRead(path, what: "auth key")
            }
            return try ES256PublicKey(pem: pem)
        } catch let error as ES256KeyError {
            throw CommandLineError("auth key \(path) is unusable: \(error)")
        }
    }

    /// The certificates of a CA file (`--ca-file`), refused before work when it holds none.
    static func trustedCertificates(_ path: String) throws -> [UInt8] {
        let pem = try InputFile.bytes(path, what: "CA file")
        do {
            try TLSIdentity.checkCertificates(pem)
        } catch {
            throw CommandLineError("CA file \(path) is unusable: \(error)")
        }
        return pem
    }

    /// A server's certificate chain and key (`--tls-cert`, `--tls-key`), refused before work
    /// unless they are a PEM chain and the private key of its first certificate.
    static func serverIdentity(certificate: String, key: String) throws -> TLSIdentity {
        let identity = TLSIdentity(
            certificatePEM: try InputFile.bytes(certificate, what: "certificate"),
            privateKeyPEM: try InputFile.bytes(key, what: "TLS key")
        )
        do {
            try identity.check()
        } catch .notACertificate {
            throw CommandLineError("certificate \(certificate) is unusable: \(TLSFileError.notACertificate)")
        } catch {
            throw CommandLineError("TLS key \(key) is unusable: \(error)")
        }
        warnIfOthersCanRead(key, what: "TLS key")
        return identity
    }
}
