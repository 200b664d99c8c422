import Foundation
import Wire
import Workload

/// The signing keys a mock accepts, read from a JSON file (`pushbench mock --keys FILE`), so one
/// mock can play a team with several keys of different scopes:
///
/// ```json
/// {"keys": [
///   {"key_id": "ABC123DEFG", "team_id": "DEF123GHIJ", "public_key": "legacy.pem"},
///   {"key_id": "PROD000001", "team_id": "DEF123GHIJ", "public_key": "prod.pem", "environment": "production"},
///   {"key_id": "TOPIC00001", "team_id": "DEF123GHIJ", "public_key": "AuthKey_TOPIC00001.p8",
///    "environment": "production", "topics": ["com.example.app"]}
/// ]}
/// ```
///
/// `public_key` is a PEM public key or an Apple `.p8` (only its public half is kept), relative to
/// the file's folder. `environment` is `production`, `development` or `both` (the default: an
/// older key); `topics` makes a topic-specific key. Unknown fields are errors, so a misspelt
/// scope cannot silently widen a key.
public enum ProviderKeyFile {
    private static let fields: Set<String> = ["key_id", "team_id", "public_key", "environment", "topics"]

    /// The keys in the file at `path`.
    /// - Throws: `ProviderKeyFileError` naming the file, the entry and what is wrong; never the
    ///   content of a key.
    public static func load(_ path: String) throws -> [ProviderKey] {
        let data: Data
        do {
            data = Data(try InputFile.bytes(path, what: "keys file"))
        } catch {
            throw ProviderKeyFileError(error.description)
        }
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let entries = root["keys"] as? [Any], !entries.isEmpty
        else {
            throw ProviderKeyFileError(
                #"keys file \#(path): expected a JSON object {"keys": [...]} with at least one key"#
            )
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var keys: [ProviderKey] = []
        for (index, entry) in entries.enumerated() {
            do {
                let key = try self.key(entry, in: folder)
                guard !keys.contains(where: { $0.keyID == key.keyID }) else {
                    throw ProviderKeyFileError("key_id \(key.keyID) appears twice")
                }
                keys.append(key)
            } catch let error as ProviderKeyFileError {
                throw ProviderKeyFileError("keys file \(path): key \(index + 1): \(error)")
            }
        }
        return keys
    }

    /// One entry of the list; `folder` is where relative key paths start.
    private static func key(_ entry: Any, in folder: URL) throws -> ProviderKey {
        guard let entry = entry as? [String: Any] else { throw ProviderKeyFileError("not an object") }
        if let unknown = entry.keys.filter({ !fields.contains($0) }).sorted().first {
            throw ProviderKeyFileError("unknown field '\(unknown)' (known: \(fields.sorted().joined(separator: ", ")))")
        }
        guard let keyID = entry["key_id"] as? String, keyID.utf8.count == 10 else {
            throw ProviderKeyFileError("key_id must be the key's 10-character ID")
        }
        guard let teamID = entry["team_id"] as? String, teamID.utf8.count == 10 else {
            throw ProviderKeyFileError("team_id must be the 10-character team ID")
        }
        guard let keyPath = entry["public_key"] as? String, !keyPath.isEmpty else {
            throw ProviderKeyFileError("public_key must name a PEM public key or .p8 file")
        }
        var environment: MockAPNsConfiguration.Environment? = nil
        if let value = entry["environment"] {
            let name = value as? String ?? ""
            environment = MockAPNsConfiguration.Environment(rawValue: name)
            guard environment != nil || name == "both" else {
                throw ProviderKeyFileError("environment must be production, development or both")
            }
        }
        var topics: Set<String>? = nil
        if let listed = entry["topics"] {
            guard let names = listed as? [String], !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else {
                throw ProviderKeyFileError("topics must be a non-empty list of bundle IDs")
            }
            topics = Set(names)
        }
        let file = keyPath.hasPrefix("/") ? keyPath : folder.appendingPathComponent(keyPath).path
        guard let pem = FileManager.default.contents(atPath: file) else {
            throw ProviderKeyFileError("cannot read public_key \(file)")
        }
        do {
            let publicKey = try ES256PublicKey(pem: Array(pem))
            return ProviderKey(
                keyID: keyID,
                teamID: teamID,
                publicKey: publicKey,
                environment: environment,
                topics: topics
            )
        } catch {
            throw ProviderKeyFileError("public_key \(file) is unusable: \(error)")
        }
    }
}

/// A keys file the mock cannot use.
public struct ProviderKeyFileError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
