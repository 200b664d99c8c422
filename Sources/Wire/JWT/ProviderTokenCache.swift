import Synchronization

/// Hands out the current provider token for one (key, team), signing a new one only when the
/// current one reaches the refresh age.
///
/// A correct sender signs about once an hour, not once per push: signing per push costs an ES256
/// signature each time and gets connections throttled with `TooManyProviderTokenUpdates`. The
/// refresh age defaults to 50 minutes (Pushy's) and must lie in Apple's window: at least 20
/// minutes (APNs refuses faster token changes on a connection) and under 60 (APNs refuses older
/// tokens). See `docs/apns.md` §2.
///
/// The cache is shared by all threads; each thread reads it through its own `Reader`, which
/// touches the shared lock only when its copy reaches the refresh age.
public final class ProviderTokenCache: Sendable {
    /// The default token age before refresh, in seconds.
    public static let defaultRefreshAge: Int64 = 50 * 60
    /// The refresh ages APNs tolerates, in seconds.
    public static let allowedRefreshAges: Range<Int64> = 20 * 60..<60 * 60

    /// The signing key.
    public let key: ES256PrivateKey
    /// The 10-character key ID (`kid`).
    public let keyID: String
    /// The 10-character team ID (`iss`).
    public let teamID: String
    /// How old a token may get before it is replaced, in seconds.
    public let refreshAge: Int64
    private let current = Mutex<ProviderToken?>(nil)

    /// Creates a cache that signs with `key` for `keyID` and `teamID`.
    ///
    /// - Precondition: `refreshAge` lies in `allowedRefreshAges`.
    public init(
        key: ES256PrivateKey,
        keyID: String,
        teamID: String,
        refreshAge: Int64 = ProviderTokenCache.defaultRefreshAge
    ) {
        precondition(
            Self.allowedRefreshAges.contains(refreshAge),
            "refresh age \(refreshAge) s is outside APNs' window"
        )
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.refreshAge = refreshAge
    }

    /// The token to send at `now` (UNIX seconds), signing a new one if the cached one is too old.
    public func token(now: Int64) throws -> ProviderToken {
        try current.withLock { cached in
            if let token = cached, isFresh(token, now: now) { return token }
            let fresh = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: now, with: key)
            cached = fresh
            return fresh
        }
    }

    /// Whether `token` may still be sent at `now`; a clock that went backwards counts as stale.
    func isFresh(_ token: ProviderToken, now: Int64) -> Bool {
        now >= token.issuedAt && now - token.issuedAt < refreshAge
    }
}
