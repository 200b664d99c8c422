import Wire

/// A signing key the mock knows: the public half of an APNs auth key, with the key ID and team
/// it belongs to, and since 2025 its scope.
///
/// Apple now issues keys limited to one environment ("team-scoped": every topic of the team, in
/// Sandbox or Production) or to some topics ("topic-specific"), beside the older keys valid
/// everywhere (`docs/apns.md` §2). A scoped key used in the other environment gets
/// `BadEnvironmentKeyIdInToken`, and a connection that began with a scoped key refuses any other
/// key with `UnrelatedKeyIdInToken`.
public struct ProviderKey: Sendable {
    /// The 10-character key ID tokens name in `kid`.
    public let keyID: String
    /// The team the key belongs to; tokens must name it in `iss`.
    public let teamID: String
    /// The key that verifies signatures.
    public let publicKey: ES256PublicKey
    /// The one environment the key works in; `nil` for an older key valid in both.
    public let environment: MockAPNsConfiguration.Environment?
    /// The topics (bundle IDs) a topic-specific key may push to; `nil` for every topic of the
    /// team. Push-type suffixes such as `.push-type.liveactivity` belong to their bundle ID.
    public let topics: Set<String>?

    /// Creates a key entry; without `environment` and `topics` it is an older, unscoped key.
    public init(
        keyID: String,
        teamID: String,
        publicKey: ES256PublicKey,
        environment: MockAPNsConfiguration.Environment? = nil,
        topics: Set<String>? = nil
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
        self.environment = environment
        self.topics = topics
    }

    /// Whether Apple's 2025 scoping rules apply to the key.
    public var isScoped: Bool { environment != nil || topics != nil }

    /// The key's scope in words, for the mock's start-up lines.
    public var scope: String {
        let place = environment.map { "\($0.rawValue) only" } ?? "both environments"
        return topics.map { "topic-specific (\($0.sorted().joined(separator: ", "))), \(place)" }
            ?? "every topic, \(place)"
    }

    /// Whether the key may sign pushes to the app `bundleID` (the topic without its push-type
    /// suffix): any app of the team without a topic list, otherwise a listed one.
    public func covers(bundleID: Substring) -> Bool {
        topics?.contains(String(bundleID)) ?? true
    }
}
