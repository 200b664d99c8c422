import Wire

/// A signing key the mock knows: the public half of an APNs auth key, with the key ID and team
/// it belongs to.
public struct ProviderKey: Sendable {
    /// The 10-character key ID tokens name in `kid`.
    public let keyID: String
    /// The team the key belongs to; tokens must name it in `iss`.
    public let teamID: String
    /// The key that verifies signatures.
    public let publicKey: ES256PublicKey

    /// Creates a key entry.
    public init(keyID: String, teamID: String, publicKey: ES256PublicKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
    }
}
