import XCTest

@testable import MockAPNs
@testable import Wire

/// Apple's 2025 key scoping, as the validator plays it: keys for one environment, keys for some
/// topics, and connections that stay with the kind of key they began with.
final class KeyScopeTests: XCTestCase {
    private static let team = "DEF123GHIJ"
    private static let now: Int64 = 1_800_000_000
    /// Key ID → (private key, environment, topics).
    private static let keys: [String: (ES256PrivateKey, MockAPNsConfiguration.Environment?, Set<String>?)] = [
        "LEGACYKEY1": (try! ES256PrivateKey(), nil, nil),
        "LEGACYKEY2": (try! ES256PrivateKey(), nil, nil),
        "TEAMPROD01": (try! ES256PrivateKey(), .production, nil),
        "TEAMDEV001": (try! ES256PrivateKey(), .development, nil),
        "TOPICKEY01": (try! ES256PrivateKey(), .production, ["com.example.app"]),
    ]
    private let validator = PushRequestValidator(
        verifier: ProviderTokenVerifier(
            keys: keys.map { keyID, entry in
                ProviderKey(
                    keyID: keyID,
                    teamID: team,
                    publicKey: try! ES256PublicKey(pem: entry.0.publicKeyPEM()),
                    environment: entry.1,
                    topics: entry.2
                )
            }
        ),
        environment: .production
    )

    private func push(keyID: String, at now: Int64, app: String = "com.example.app") throws -> InboundPush {
        let key = try XCTUnwrap(Self.keys[keyID]).0
        let token = try ProviderToken.sign(keyID: keyID, teamID: Self.team, issuedAt: now, with: key)
        return InboundPush(
            method: "POST",
            path: "/3/device/" + String(repeating: "ab", count: 32),
            headers: [
                ("authorization", "bearer " + token.jwt), ("apns-push-type", "liveactivity"),
                ("apns-topic", app + ".push-type.liveactivity"),
            ],
            bodyLength: 100
        )
    }

    /// The answers to pushes signed by `keyIDs` in turn on one connection, 20 minutes apart so the
    /// token-update throttle stays out of the way.
    private func answers(_ keyIDs: [String]) throws -> [APNsReason?] {
        var tokens = ProviderTokenHistory()
        return try keyIDs.enumerated().map { index, keyID in
            let now = Self.now + Int64(index) * ProviderTokenHistory.minimumUpdateInterval
            return validator.verdict(on: try push(keyID: keyID, at: now), now: now, tokens: &tokens).rejection
        }
    }

    func testAKeyForTheOtherEnvironmentIsRefused() throws {
        XCTAssertEqual(try answers(["TEAMDEV001"]), [.badEnvironmentKeyIdInToken])
        XCTAssertEqual(try answers(["TEAMPROD01", "TEAMDEV001"]), [nil, .badEnvironmentKeyIdInToken])
    }

    func testAConnectionThatBeganWithAScopedKeyRefusesAnyOther() throws {
        XCTAssertEqual(try answers(["TEAMPROD01", "LEGACYKEY1", "TEAMPROD01"]), [nil, .unrelatedKeyIdInToken, nil])
        XCTAssertEqual(try answers(["TOPICKEY01", "TEAMPROD01"]), [nil, .unrelatedKeyIdInToken])
        XCTAssertEqual(try answers(["LEGACYKEY1", "TOPICKEY01"]), [nil, .unrelatedKeyIdInToken])
    }

    func testOlderKeysStillMixAsBefore() throws {
        XCTAssertEqual(try answers(["LEGACYKEY1", "LEGACYKEY2", "LEGACYKEY1"]), [nil, nil, nil])
    }

    func testATopicSpecificKeyOnlySignsForItsApps() throws {
        func answer(_ keyID: String, app: String) throws -> APNsReason? {
            var fresh = ProviderTokenHistory()
            let push = try push(keyID: keyID, at: Self.now, app: app)
            return validator.verdict(on: push, now: Self.now, tokens: &fresh).rejection
        }
        XCTAssertNil(try answer("TOPICKEY01", app: "com.example.app"))
        XCTAssertEqual(try answer("TOPICKEY01", app: "com.example.other"), .invalidProviderToken)
        XCTAssertNil(try answer("TEAMPROD01", app: "com.example.other"))
    }
}
