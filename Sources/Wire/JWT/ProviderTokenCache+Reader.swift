extension ProviderTokenCache {
    /// One thread's view of a `ProviderTokenCache`: a private copy of the current token, checked
    /// against the clock on each lookup, so the steady state takes no lock and shares no
    /// reference count with other threads.
    ///
    /// Keep one reader per thread (or per connection); it is not meant to be shared.
    public struct Reader {
        /// The shared cache behind this reader.
        public let cache: ProviderTokenCache
        private var local: ProviderToken?
        private var localIssuedAt: Int64 = .max
        private var localStaleAt: Int64 = .min

        /// Creates a reader of `cache`.
        public init(_ cache: ProviderTokenCache) {
            self.cache = cache
        }

        /// The token to send at `now` (UNIX seconds); asks the shared cache only when the local
        /// copy has reached the refresh age.
        public mutating func token(now: Int64) throws -> ProviderToken {
            if now >= localIssuedAt && now < localStaleAt, let local { return local }
            let shared = try cache.token(now: now)
            let copy = ProviderToken(
                keyID: shared.keyID,
                teamID: shared.teamID,
                issuedAt: shared.issuedAt,
                jwt: String(decoding: Array(shared.jwt.utf8), as: UTF8.self),
                authorization: String(decoding: Array(shared.authorization.utf8), as: UTF8.self)
            )
            local = copy
            localIssuedAt = copy.issuedAt
            localStaleAt = copy.issuedAt + cache.refreshAge
            return copy
        }
    }
}
