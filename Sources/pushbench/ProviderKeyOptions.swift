import ArgumentParser
import LoadEngine
import MockAPNs
import Wire

/// The provider key: the `.p8` that `run` signs its provider tokens with, and the one whose
/// tokens `mock` accepts, with its key ID and team ID, checked together. One group, so every
/// command that signs or verifies takes the key the same way.
struct ProviderKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("auth-key"),
        help:
            "Apple .p8 provider key (PKCS#8 PEM; mock also takes its public key as PEM): run signs with it, mock accepts its tokens."
    )
    var authKey: String?

    @Option(name: .customLong("key-id"), help: "Key ID (kid) of --auth-key.")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Team ID (iss) of --auth-key.")
    var teamID: String?

    func validate() throws {
        if authKey != nil && (keyID == nil || teamID == nil) {
            throw ValidationError("--auth-key needs --key-id and --team-id")
        }
    }

    /// The key tokens are signed with, and its `kid` and `iss`: `--auth-key`'s, or a P-256 key
    /// made now with `generatedKeyID` and `generatedTeamID`.
    func signing(generatedKeyID: String, generatedTeamID: String) throws -> ProviderTokenCache {
        ProviderTokenCache(
            key: try authKey.map(KeyFile.signingKey) ?? ES256PrivateKey(),
            keyID: keyID ?? generatedKeyID,
            teamID: teamID ?? generatedTeamID
        )
    }

    /// The key whose tokens are accepted, if `--auth-key` names one.
    func verification() throws -> ProviderKey? {
        guard let authKey, let keyID, let teamID else { return nil }
        return ProviderKey(keyID: keyID, teamID: teamID, publicKey: try KeyFile.verificationKey(authKey))
    }
}

extension ProviderTokenPolicy: ExpressibleByArgument {}
