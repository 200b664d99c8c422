import Wire

/// The provider-token rules APNs applies per connection (`docs/apns.md` §2):
/// the team of the first push is pinned to the connection, and the connection may adopt a new
/// token at most once every 20 minutes.
///
/// A token from another team gets 403 `InvalidProviderToken` (Pushy's mock answers so; Apple
/// only says a connection cannot carry two developer accounts). A new token within 20 minutes of
/// the last adopted one gets 429 `TooManyProviderTokenUpdates` and is not adopted, so the old
/// token keeps working; this is what a sender that signs per push runs into.
public struct ProviderTokenHistory: Sendable {
    /// The shortest time between token changes on one connection, seconds.
    public static let minimumUpdateInterval: Int64 = 20 * 60

    /// The token adopted last.
    public private(set) var current: ProviderTokenVerifier.Identity?
    private var adoptedAt: Int64 = 0
    /// Tokens adopted by the connection so far (the first one included).
    public private(set) var adoptedTokens = 0

    /// A connection that has seen no push yet.
    public init() {}

    /// Applies the rules to a verified token arriving at `now`; `nil` when the push may proceed.
    public mutating func admit(_ identity: ProviderTokenVerifier.Identity, now: Int64) -> APNsReason? {
        guard let current else {
            adopt(identity, now: now)
            return nil
        }
        if identity == current { return nil }
        guard identity.teamID == current.teamID else { return .invalidProviderToken }
        guard now - adoptedAt >= Self.minimumUpdateInterval else { return .tooManyProviderTokenUpdates }
        adopt(identity, now: now)
        return nil
    }

    private mutating func adopt(_ identity: ProviderTokenVerifier.Identity, now: Int64) {
        current = identity
        adoptedAt = now
        adoptedTokens += 1
    }
}
