import Encodings
import Foundation
import Synchronization
import Wire

/// Checks `authorization: bearer <JWT>` headers the way APNs does, verifying each distinct token
/// once.
///
/// A sender reuses one token for up to an hour, so after the first ES256 verification (about
/// 60 µs) every later push with the same token costs a dictionary lookup, and a push with the
/// token its connection already adopted costs a string comparison. The age check is not cached:
/// a cached token still expires when its `iat` passes an hour.
public final class ProviderTokenVerifier: Sendable {
    /// What a verified token says.
    public struct Identity: Sendable, Equatable {
        /// The `kid` header.
        public let keyID: String
        /// The `iss` claim.
        public let teamID: String
        /// The `iat` claim, UNIX seconds.
        public let issuedAt: Int64
        /// How `iat` was written when not as Apple documents it, a whole number: `iat_string`
        /// (digits in a JSON string, as kalyke-apns sends it) or `iat_fraction`. APNs accepts
        /// both; the mock does too, and counts them (`docs/mock-conformance.md`).
        public var irregularity: String? = nil
        /// The raw signature. ECDSA signs with a fresh random nonce, so two tokens with the same
        /// claims are still two tokens, as APNs sees those of a sender that signs every push.
        public let signature: [UInt8]
        /// The `authorization` header it came in, by which a connection recognises it again.
        public let authorization: String
    }

    /// APNs refuses tokens older than this many seconds (`ExpiredProviderToken`).
    public static let maxTokenAge: Int64 = 3600

    private let keys: [String: ProviderKey]
    /// Whether any key is scoped, so the scope rules cost nothing when none is.
    public let hasScopedKeys: Bool
    private let verified = Mutex<[String: Identity]>([:])
    private let checks = Atomic<Int>(0)
    private static let cacheLimit = 4096

    /// Creates a verifier for `keys`. With no keys, any well-formed ES256 token is accepted
    /// unverified (the mock says so when it starts).
    public init(keys: [ProviderKey]) {
        self.keys = Dictionary(keys.map { ($0.keyID, $0) }, uniquingKeysWith: { first, _ in first })
        hasScopedKeys = keys.contains(where: \.isScoped)
    }

    /// The key with ID `keyID`, if the verifier knows it.
    public func key(_ keyID: String) -> ProviderKey? { keys[keyID] }

    /// Whether signatures are checked at all.
    public var verifiesSignatures: Bool { !keys.isEmpty }

    /// How many tokens were parsed and checked in full (cache misses); a sender that reuses its
    /// token, as it should, costs one per key and refresh, whatever the push count.
    public var fullChecks: Int { checks.load(ordering: .relaxed) }

    /// The identity in `authorization`, or the reason APNs would refuse it at time `now`;
    /// `current` is the identity the connection adopted last, if any.
    public func verify(authorization: String?, now: Int64, current: Identity? = nil) -> Result<Identity, APNsReason> {
        guard let authorization, !authorization.isEmpty else { return .failure(.missingProviderToken) }
        let identity: Identity
        if let current, current.authorization == authorization {
            identity = current
        } else if let cached = verified.withLock({ $0[authorization] }) {
            identity = cached
        } else {
            guard let checked = check(authorization) else { return .failure(.invalidProviderToken) }
            verified.withLock { cache in
                if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
                cache[authorization] = checked
            }
            identity = checked
        }
        guard now - identity.issuedAt <= Self.maxTokenAge else { return .failure(.expiredProviderToken) }
        return .success(identity)
    }

    /// Parses and (with keys) verifies `bearer <compact JWS>`; `nil` for anything APNs would call
    /// invalid.
    private func check(_ authorization: String) -> Identity? {
        checks.add(1, ordering: .relaxed)
        guard authorization.utf8.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return nil }
        let jwt = authorization.dropFirst(7)
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64.decodeURL(parts[0]),
            let claimBytes = Base64.decodeURL(parts[1]),
            let signature = Base64.decodeURL(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
            let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimBytes)),
            header.alg == "ES256"
        else { return nil }
        let keyID = header.kid
        let teamID = claims.iss
        let issuedAt = claims.iat
        if verifiesSignatures {
            guard let key = keys[keyID], key.teamID == teamID else { return nil }
            let signingInput = Array(jwt.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
            guard key.publicKey.verify(signature: signature, of: signingInput) else { return nil }
        } else {
            guard signature.count == 64 else { return nil }
        }
        return Identity(
            keyID: keyID,
            teamID: teamID,
            issuedAt: issuedAt,
            irregularity: claims.irregularity,
            signature: signature,
            authorization: authorization
        )
    }

    /// The JOSE header APNs requires: ES256 and a key ID.
    private struct Header: Decodable {
        let alg: String
        let kid: String
    }

    /// The claims APNs requires: `iss`, and `iat` as a whole number, or as the digits of one in a
    /// string, or with a fraction (truncated), which long-lived clients send and APNs accepts.
    private struct Claims: Decodable {
        let iss: String
        let iat: Int64
        let irregularity: String?

        private enum CodingKeys: String, CodingKey { case iss, iat }

        init(from decoder: Decoder) throws {
            let claims = try decoder.container(keyedBy: CodingKeys.self)
            iss = try claims.decode(String.self, forKey: .iss)
            if let whole = try? claims.decode(Int64.self, forKey: .iat) {
                iat = whole
                irregularity = nil
            } else if let text = try? claims.decode(String.self, forKey: .iat) {
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) else {
                    throw DecodingError.dataCorruptedError(forKey: .iat, in: claims, debugDescription: "not digits")
                }
                iat = value
                irregularity = "iat_string"
            } else {
                let number = try claims.decode(Double.self, forKey: .iat)
                guard number.isFinite, number >= 0, number < 1e15 else {
                    throw DecodingError.dataCorruptedError(forKey: .iat, in: claims, debugDescription: "out of range")
                }
                iat = Int64(number)
                irregularity = "iat_fraction"
            }
        }
    }
}
