import Encodings
import XCTest

@testable import MockAPNs
@testable import Wire

final class ProviderTokenVerifierTests: XCTestCase {
    private let keyID = "ABC123DEFG"
    private let teamID = "DEF123GHIJ"

    private func verifier(for key: ES256PrivateKey) throws -> ProviderTokenVerifier {
        ProviderTokenVerifier(keys: [
            ProviderKey(keyID: keyID, teamID: teamID, publicKey: try ES256PublicKey(pem: key.publicKeyPEM()))
        ])
    }

    private func bearer(_ token: ProviderToken) -> String { "bearer " + token.jwt }

    func testAcceptsAValidTokenAndExpiresItAfterAnHour() throws {
        let key = try ES256PrivateKey()
        let verifier = try verifier(for: key)
        let token = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: 10_000, with: key)
        XCTAssertEqual(
            try verifier.verify(authorization: bearer(token), now: 10_000).get(),
            .init(
                keyID: keyID,
                teamID: teamID,
                issuedAt: 10_000,
                signature: try XCTUnwrap(Base64.decodeURL(token.jwt.split(separator: ".")[2])),
                authorization: bearer(token)
            )
        )
        XCTAssertNoThrow(try verifier.verify(authorization: bearer(token), now: 10_000 + 3600).get())
        XCTAssertEqual(
            verifier.verify(authorization: bearer(token), now: 10_000 + 3601),
            .failure(.expiredProviderToken),
            "a cached token still expires"
        )
    }

    func testTheConnectionsAdoptedTokenSkipsTheCacheButStillExpires() throws {
        let key = try ES256PrivateKey()
        let verifier = try verifier(for: key)
        let token = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: 10_000, with: key)
        let adopted = try verifier.verify(authorization: bearer(token), now: 10_000).get()
        XCTAssertEqual(verifier.fullChecks, 1)
        XCTAssertEqual(try verifier.verify(authorization: bearer(token), now: 10_001, current: adopted).get(), adopted)
        XCTAssertEqual(
            verifier.verify(authorization: bearer(token), now: 10_000 + 3601, current: adopted),
            .failure(.expiredProviderToken)
        )
        let other = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: 10_500, with: key)
        XCTAssertNotEqual(
            try verifier.verify(authorization: bearer(other), now: 10_600, current: adopted).get(),
            adopted
        )
        XCTAssertEqual(verifier.fullChecks, 2, "a different token is checked in full")
    }

    func testRefusesMissingMalformedAndForeignTokens() throws {
        let key = try ES256PrivateKey()
        let verifier = try verifier(for: key)
        XCTAssertEqual(verifier.verify(authorization: nil, now: 1), .failure(.missingProviderToken))
        XCTAssertEqual(verifier.verify(authorization: "", now: 1), .failure(.missingProviderToken))
        XCTAssertEqual(verifier.verify(authorization: "bearer not.a.jwt", now: 1), .failure(.invalidProviderToken))
        XCTAssertEqual(verifier.verify(authorization: "basic abc", now: 1), .failure(.invalidProviderToken))
        let otherKey = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: 1, with: ES256PrivateKey())
        XCTAssertEqual(verifier.verify(authorization: bearer(otherKey), now: 1), .failure(.invalidProviderToken))
        let unknownKid = try ProviderToken.sign(keyID: "ZZZ123DEFG", teamID: teamID, issuedAt: 1, with: key)
        XCTAssertEqual(verifier.verify(authorization: bearer(unknownKid), now: 1), .failure(.invalidProviderToken))
        let wrongTeam = try ProviderToken.sign(keyID: keyID, teamID: "OTHERTEAM1", issuedAt: 1, with: key)
        XCTAssertEqual(verifier.verify(authorization: bearer(wrongTeam), now: 1), .failure(.invalidProviderToken))
    }

    func testRefusesDERSignatures() throws {
        let key = try ES256PrivateKey()
        let verifier = try verifier(for: key)
        let good = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: 1, with: key)
        let pieces = good.jwt.split(separator: ".").map(String.init)
        let der = try XCTUnwrap(ES256Signature.der(fromRaw: XCTUnwrap(Base64.decodeURL(pieces[2]))))
        let withDER = pieces[0] + "." + pieces[1] + "." + Base64.encode(der, .url)
        XCTAssertEqual(verifier.verify(authorization: "bearer " + withDER, now: 1), .failure(.invalidProviderToken))
    }

    /// kalyke-apns has sent `iat` as a string of digits since 2022, and older clients send a
    /// fraction; APNs accepts both, so the mock does, naming the irregularity. Anything else in
    /// `iat` is still refused.
    func testAcceptsIssuedAtAsDigitsOrAFractionAndNamesIt() throws {
        let key = try ES256PrivateKey()
        let verifier = try verifier(for: key)
        let header = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: 1, with: key).jwt
            .split(separator: ".")[0]
        func verdict(_ iat: String) throws -> Result<ProviderTokenVerifier.Identity, APNsReason> {
            let input = header + "." + Base64.encode(Array(#"{"iss":"DEF123GHIJ","iat":\#(iat)}"#.utf8), .url)
            let signature = try key.sign(Array(input.utf8))
            return verifier.verify(authorization: "bearer " + input + "." + Base64.encode(signature, .url), now: 10)
        }
        for (iat, irregularity) in [("7", nil), (#""7""#, "iat_string"), ("7.9", "iat_fraction")] {
            guard case .success(let identity) = try verdict(iat) else { return XCTFail("iat \(iat) refused") }
            XCTAssertEqual(identity.issuedAt, 7, iat)
            XCTAssertEqual(identity.irregularity, irregularity, iat)
        }
        for refused in [#""7a""#, #""""#, #""-7""#, "null", #"{"s":7}"#] {
            XCTAssertEqual(try verdict(refused), .failure(.invalidProviderToken), refused)
        }
    }

    func testWithoutKeysAcceptsAnyWellFormedES256Token() throws {
        let verifier = ProviderTokenVerifier(keys: [])
        XCTAssertFalse(verifier.verifiesSignatures)
        let token = try ProviderToken.sign(
            keyID: "ANYKEY0001",
            teamID: "ANYTEAM001",
            issuedAt: 5,
            with: ES256PrivateKey()
        )
        XCTAssertNoThrow(try verifier.verify(authorization: bearer(token), now: 5).get())
        XCTAssertEqual(verifier.verify(authorization: "bearer a.b.c", now: 5), .failure(.invalidProviderToken))
        XCTAssertEqual(verifier.verify(authorization: nil, now: 5), .failure(.missingProviderToken))
    }
}
