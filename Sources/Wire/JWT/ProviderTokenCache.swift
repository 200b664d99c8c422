import Synchronization

/// Hands out the current provider token for one (key, team), signing a new one only when the
/// current one reaches `maxAge`.
///
/// A correct sender signs about once an hour, not once per push: signing per push costs an ES256
/// signature each time and gets connections throttled with `TooManyProviderTokenUpdates`. The
/// default age of 50 minutes is Pushy's, inside Apple's 20-to-60-minute window.
public final class ProviderTokenCache: Sendable {
    /// The default token age before refresh, in seconds.
    public static let defaultMaxAge: Int64 = 50 * 60

    private let key: ES256PrivateKey
    private let keyID: String
    private let teamID: String
    private let maxAge: Int64
    private let current = Mutex<ProviderToken?>(nil)

    /// Creates a cache that signs with `key` for `keyID` and `teamID`.
    public init(key: ES256PrivateKey, keyID: String, teamID: String, maxAge: Int64 = ProviderTokenCache.defaultMaxAge) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.maxAge = maxAge
    }

    /// The token to send at `now` (UNIX seconds), signing a new one if the cached one is too old.
    public func token(now: Int64) throws -> ProviderToken {
        try current.withLock { cached in
            if let token = cached, now - token.issuedAt < maxAge, now >= token.issuedAt {
                return token
            }
            let fresh = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: now, with: key)
            cached = fresh
            return fresh
        }
    }
}
