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
}
