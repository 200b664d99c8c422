import MockFaults
import Workload
import XCTest

@testable import MockAPNs
@testable import Wire

final class PushRequestValidatorTests: XCTestCase {
    private static let key = try! ES256PrivateKey()
    private let now: Int64 = 1_800_000_000
    private lazy var validator = PushRequestValidator(
        verifier: ProviderTokenVerifier(keys: [
            ProviderKey(
                keyID: "ABC123DEFG",
                teamID: "DEF123GHIJ",
                publicKey: try! ES256PublicKey(pem: Self.key.publicKeyPEM())
            )
        ])
    )
    private lazy var authorization =
        "bearer "
        + (try! ProviderToken.sign(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: now, with: Self.key).jwt)
    private let token = String(repeating: "ab", count: 32)

    private func push(
        method: String = "POST",
        path: String? = nil,
        replacing: [String: String?] = [:],
        extra: [(String, String)] = [],
        body: Int = 200
    ) -> InboundPush {
        var headers: [(name: String, value: String)] = []
        let base: [(String, String)] = [
            ("authorization", authorization), ("apns-push-type", "liveactivity"),
            ("apns-topic", "com.example.app.push-type.liveactivity"), ("apns-priority", "10"),
            ("apns-expiration", "0"), ("apns-id", "01234567-89ab-4def-bedc-ba9876543210"),
        ]
        for (name, value) in base {
            if let replacement = replacing[name] {
                if let replacement { headers.append((name, replacement)) }
            } else {
                headers.append((name, value))
            }
        }
        headers += extra.map { (name: $0.0, value: $0.1) }
        return InboundPush(method: method, path: path ?? "/3/device/" + token, headers: headers, bodyLength: body)
    }

    private func verdict(_ push: InboundPush) -> PushRequestValidator.Verdict {
        var fresh = ProviderTokenHistory()
        return validator.verdict(on: push, now: now, tokens: &fresh)
    }

    private func reason(_ push: InboundPush) -> APNsReason? { verdict(push).rejection }

    func testAcceptsAWellFormedLiveActivityPush() {
        XCTAssertNil(reason(push()))
        XCTAssertNil(reason(push(replacing: ["apns-id": nil, "apns-priority": nil, "apns-expiration": nil])))
        XCTAssertNil(reason(push(replacing: ["apns-priority": "5"])))
        XCTAssertNil(reason(push(replacing: ["apns-priority": "1"])))
        XCTAssertNil(reason(push(body: 4096)))
    }

    func testEachFaultGetsItsDocumentedReason() {
        XCTAssertEqual(reason(push(method: "GET")), .methodNotAllowed)
        XCTAssertEqual(reason(push(path: "/3/devices/" + token)), .badPath)
        XCTAssertEqual(reason(push(path: "/3/device/")), .missingDeviceToken)
        XCTAssertEqual(reason(push(extra: [("apns-topic", "again")])), .duplicateHeaders)
        XCTAssertEqual(reason(push(replacing: ["authorization": nil])), .missingProviderToken)
        XCTAssertEqual(reason(push(replacing: ["authorization": "bearer x.y.z"])), .invalidProviderToken)
        XCTAssertEqual(reason(push(replacing: ["apns-id": "01234567-89AB-4DEF-BEDC-BA9876543210"])), .badMessageId)
        XCTAssertEqual(reason(push(replacing: ["apns-push-type": "liveActivity"])), .invalidPushType)
        XCTAssertEqual(reason(push(replacing: ["apns-topic": nil])), .missingTopic)
        XCTAssertEqual(reason(push(replacing: ["apns-topic": "com.example.app"])), .deviceTokenNotForTopic)
        XCTAssertEqual(reason(push(replacing: ["apns-priority": "7"])), .badPriority)
        XCTAssertEqual(reason(push(replacing: ["apns-expiration": "soon"])), .badExpirationDate)
        XCTAssertEqual(reason(push(extra: [("apns-collapse-id", String(repeating: "c", count: 65))])), .badCollapseId)
        XCTAssertEqual(reason(push(path: "/3/device/" + String(token.dropLast()))), .badDeviceToken)
        XCTAssertEqual(reason(push(path: "/3/device/" + String(repeating: "zz", count: 32))), .badDeviceToken)
        XCTAssertEqual(reason(push(body: 0)), .payloadEmpty)
        XCTAssertEqual(reason(push(body: 4097)), .payloadTooLarge)
    }

    func testFirstFailingCheckWins() {
        XCTAssertEqual(reason(push(method: "PUT", replacing: ["authorization": nil])), .methodNotAllowed)
        XCTAssertEqual(reason(push(replacing: ["authorization": nil, "apns-topic": nil])), .missingProviderToken)
        XCTAssertEqual(reason(push(path: "/3/device/xyz", body: 0)), .badDeviceToken)
    }

    func testVerdictSaysWhetherTheTokenWasValid() {
        XCTAssertTrue(verdict(push()).tokenVerified)
        let rejected = verdict(push(body: 0))
        XCTAssertEqual(rejected.rejection, .payloadEmpty)
        XCTAssertTrue(rejected.tokenVerified, "a later check may reject a push whose token was valid")
        XCTAssertNotNil(rejected.issuedAt, "recordings keep the token's iat whatever the answer")
        XCTAssertFalse(verdict(push(replacing: ["authorization": nil])).tokenVerified)
        XCTAssertFalse(verdict(push(method: "GET")).tokenVerified, "never reached the token")
    }

    func testTokenHygieneDecidesLastAndExpiresTokensOnTheClock() throws {
        func validator(_ hygiene: TokenHygiene) -> PushRequestValidator {
            PushRequestValidator(verifier: self.validator.verifier, tokenHygiene: hygiene, startedAt: now - 100)
        }
        func verdict(
            _ validator: PushRequestValidator,
            _ push: InboundPush,
            at time: Int64
        ) -> PushRequestValidator.Verdict {
            var fresh = ProviderTokenHistory()
            return validator.verdict(on: push, now: time, tokens: &fresh)
        }
        let unregistered = validator(try TokenHygiene(unregisteredFraction: 1))
        XCTAssertEqual(verdict(unregistered, push(), at: now).rejection, .unregistered)
        XCTAssertEqual(verdict(unregistered, push(), at: now).invalidSince, now - 100)
        XCTAssertEqual(
            verdict(unregistered, push(body: 0), at: now).rejection,
            .payloadEmpty,
            "token state is checked last"
        )
        XCTAssertEqual(
            verdict(validator(try TokenHygiene(otherTopicFraction: 1)), push(), at: now).rejection,
            .deviceTokenNotForTopic
        )

        let expiring = validator(try TokenHygiene(expiringFraction: 1, expiryWindowSeconds: 1000))
        guard case .expires(let after) = expiring.tokenHygiene.fate(ofHex: token.utf8) else {
            return XCTFail("every token expires under this profile")
        }
        let expiry = now - 100 + after
        XCTAssertNil(verdict(expiring, push(), at: expiry - 1).rejection)
        XCTAssertEqual(verdict(expiring, push(), at: expiry).rejection, .expiredToken)
        XCTAssertEqual(verdict(expiring, push(), at: expiry).invalidSince, expiry)
        XCTAssertNil(verdict(validator(.clean), push(), at: now).rejection)
    }

    func testTokenLengthIsConfigurable() {
        let short = PushRequestValidator(verifier: validator.verifier, tokenHexLength: 8)
        var tokens = ProviderTokenHistory()
        XCTAssertNil(short.verdict(on: push(path: "/3/device/0123abcd"), now: now, tokens: &tokens).rejection)
        XCTAssertEqual(short.verdict(on: push(), now: now, tokens: &tokens).rejection, .badDeviceToken)
    }
}

extension PushRequestValidatorTests {
    func testTokenRulesAnswerMatchingTokensOnceEveryOtherCheckPassed() throws {
        let rules = [
            try TokenRule(parsing: "ab=Unregistered"), try TokenRule(parsing: "a=InternalServerError"),
        ]
        let ruled = PushRequestValidator(verifier: validator.verifier, startedAt: 1_700_000_000, tokenRules: rules)
        var history = ProviderTokenHistory()
        let gone = ruled.verdict(on: push(), now: now, tokens: &history)
        XCTAssertEqual(gone.rejection, .unregistered, "the first matching rule wins")
        XCTAssertEqual(gone.invalidSince, 1_700_000_000)
        let failing = ruled.verdict(on: push(path: "/3/device/a0" + token.dropFirst(2)), now: now, tokens: &history)
        XCTAssertEqual(failing.rejection, .internalServerError)
        XCTAssertNil(failing.invalidSince)
        XCTAssertNil(
            ruled.verdict(on: push(path: "/3/device/c0" + token.dropFirst(2)), now: now, tokens: &history).rejection
        )
        XCTAssertEqual(
            ruled.verdict(on: push(replacing: ["apns-priority": "7"]), now: now, tokens: &history).rejection,
            .badPriority,
            "a rule answers only a push that passed every other check"
        )
    }

    func testTokenRulesRefuseWhatTheyCannotMean() {
        for text in ["", "ab", "=Unregistered", "AB=Unregistered", "xy=Unregistered", "ab=BadPriority", "ab=Nope"] {
            XCTAssertThrowsError(try TokenRule(parsing: text), text)
        }
    }
}
