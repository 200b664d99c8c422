import Foundation
import Wire

/// Reads key and certificate files with errors that name the file and never echo its contents.
enum KeyFile {
    static func read(_ path: String, what: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            throw CommandLineError("cannot read \(what) \(path): \(reason)")
        }
        return Array(data)
    }

    static func signingKey(_ path: String) throws -> ES256PrivateKey {
        do {
            return try ES256PrivateKey(pem: read(path, what: "signing key"))
        } catch let error as ES256KeyError {
            throw CommandLineError("signing key \(path) is unusable: \(error)")
        }
    }

    static func verificationKey(_ path: String) throws -> ES256PublicKey {
        do {
            return try ES256PublicKey(pem: read(path, what: "auth key"))
        } catch let error as ES256KeyError {
            throw CommandLineError("auth key \(path) is unusable: \(error)")
        }
    }
}
