import Encodings

/// An APNs provider authentication token: a compact ES256 JWS with header
/// `{"alg":"ES256","kid":…}` and claims exactly `{"iss":…,"iat":…}` (numeric `iat`).
///
/// APNs rejects tokens whose `iat` is more than an hour old and throttles connections that change
/// token more than once in 20 minutes, so a sender signs one rarely and reuses it
/// (`ProviderTokenCache`); see `docs/apns.md` §2.
///
/// A class, so that handing the current token to each request costs one reference count, not a
/// copy of four strings.
public final class ProviderToken: Sendable, Equatable {
    /// The 10-character key ID from the developer account.
    public let keyID: String
    /// The 10-character team ID (the `iss` claim).
    public let teamID: String
    /// Issue time, UNIX seconds (the `iat` claim).
    public let issuedAt: Int64
    /// The compact serialisation, `header.claims.signature`. A credential: never print it.
    public let jwt: String
    /// The `authorization` header value, `bearer <jwt>`, built once so that requests reuse it.
    /// A credential: never print it.
    public let authorization: String

    init(keyID: String, teamID: String, issuedAt: Int64, jwt: String, authorization: String) {
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.jwt = jwt
        self.authorization = authorization
    }

    /// Tokens are equal when their serialisations are: the signature makes each one unique.
    public static func == (lhs: ProviderToken, rhs: ProviderToken) -> Bool {
        lhs.jwt == rhs.jwt
    }

    /// Signs a new token with `key` (preparing a libcrypto context for this one signature).
    public static func sign(
        keyID: String,
        teamID: String,
        issuedAt: Int64,
        with key: ES256PrivateKey
    ) throws
        -> ProviderToken
    {
        try sign(keyID: keyID, teamID: teamID, issuedAt: issuedAt, with: ES256Signer(key: key))
    }

    /// Signs a new token with a thread's `signer`.
    public static func sign(
        keyID: String,
        teamID: String,
        issuedAt: Int64,
        with signer: ES256Signer
    ) throws
        -> ProviderToken
    {
        var header: [UInt8] = Array(#"{"alg":"ES256","kid":"#.utf8)
        JSONWriter.writeString(keyID, to: &header)
        header.append(UInt8(ascii: "}"))
        var claims: [UInt8] = Array(#"{"iss":"#.utf8)
        JSONWriter.writeString(teamID, to: &claims)
        claims.append(contentsOf: #","iat":"#.utf8)
        JSONWriter.writeInteger(issuedAt, to: &claims)
        claims.append(UInt8(ascii: "}"))
        let signingInput = Base64.encode(header, .url) + "." + Base64.encode(claims, .url)
        let signature = try signer.sign(Array(signingInput.utf8))
        let jwt = signingInput + "." + Base64.encode(signature, .url)
        return ProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, jwt: jwt, authorization: "bearer " + jwt)
    }
}
