import MockFaults
import Wire
import Workload

/// Decides how APNs would answer a device push: accepted, or rejected with a reason.
///
/// Checks run in this order, and the first failure is the answer. Apple documents the reasons but
/// not their order; this one follows Pushy's validating mock (request line, then credentials, then
/// headers, then the device token, then the payload), so a request with several faults gets the
/// answer a sender would most likely see from APNs:
///
/// 1. `:method` is POST, else 405 `MethodNotAllowed`.
/// 2. `:path` is `/3/device/<token>`, else 404 `BadPath`; an empty token is 400 `MissingDeviceToken`.
/// 3. No APNs header appears twice, else 400 `DuplicateHeaders`.
/// 4. `authorization` carries a valid provider token: 403 `MissingProviderToken`,
///    `InvalidProviderToken` or `ExpiredProviderToken`; its key, when scoped (`ProviderKey`), is
///    for the mock's environment (403 `BadEnvironmentKeyIdInToken`) and, on a connection that
///    began with another key of the team, neither key is scoped (403 `UnrelatedKeyIdInToken`);
///    and the connection accepts it (`ProviderTokenHistory`): 403 `InvalidProviderToken` for
///    another team, 429 `TooManyProviderTokenUpdates` for a second new token within 20 minutes.
/// 5. `apns-id`, when present, is a lowercase canonical UUID, else 400 `BadMessageId`.
/// 6. `apns-push-type`, when present, is a known type, else 400 `InvalidPushType`.
/// 7. `apns-topic` is present (token auth requires it), else 400 `MissingTopic`; it is a bundle
///    ID (letters, digits, `-`, `_`, dot-separated), else 400 `BadTopic`; its app is not one the
///    configuration disallows, else 400 `TopicDisallowed`; it carries the
///    suffix its push type requires (`.push-type.liveactivity`, ...), else 400
///    `DeviceTokenNotForTopic`. Apple does not document the reason for a wrong suffix; a Live
///    Activity token sent under the app topic is reported as a token/topic mismatch in practice
///    (`docs/apns.md` §1.3). A topic-specific key must list the topic's app, else
///    403 `InvalidProviderToken`, as Pushy's validating mock answers (Apple names no reason).
/// 8. `apns-priority`, when present, is 1, 5 or 10, else 400 `BadPriority`.
/// 9. `apns-expiration`, when present, is a non-negative integer, else 400 `BadExpirationDate`.
/// 10. `apns-collapse-id`, when present, is at most 64 bytes, else 400 `BadCollapseId`.
/// 11. The device token is `tokenHexLength` hex digits, else 400 `BadDeviceToken`.
/// 12. The body is not empty (400 `PayloadEmpty`) and within the push type's limit (413
///     `PayloadTooLarge`: 4096 bytes, 5120 for VoIP).
/// 13. A token listed as unregistered, or that the devices behind the mock unregistered
///     (`unregisteredSince`), gets 410 `Unregistered`; otherwise the first `TokenRule`
///     whose prefix the device token starts with gives its reason (410s invalid since the server
///     started).
/// 14. The device token's fate under the configured `TokenHygiene` (all valid by default): 400
///     `DeviceTokenNotForTopic`, 410 `Unregistered` (invalid since the server started) or, once
///     its moment has passed, 410 `ExpiredToken`. Pushy also checks token state last.
public struct PushRequestValidator: Sendable {
    /// Checks provider tokens.
    public let verifier: ProviderTokenVerifier
    /// Expected device-token length in hex digits (64 today; Apple says not to rely on it).
    public let tokenHexLength: Int
    /// Which tokens are dead or belong to another topic.
    public let tokenHygiene: TokenHygiene
    /// When the server started, UNIX seconds: unregistered tokens are invalid since then, and
    /// expiring tokens count their lifetime from it.
    public let startedAt: Int64
    /// Device-token prefixes answered with a chosen reason, checked before the hygiene profile.
    public let tokenRules: [TokenRule]
    /// Device tokens (lowercase hex) unregistered since the server started.
    public let unregisteredTokens: Set<String>
    /// Tokens that die while the mock runs: since when, UNIX seconds, or `nil` while alive.
    public let unregisteredSince: (@Sendable (Substring) -> Int64?)?
    /// Apps (bundle IDs) whose pushes APNs refuses with `TopicDisallowed`.
    public let disallowedTopics: Set<String>
    /// The environment the mock plays, which a scoped key must be for.
    public let environment: MockAPNsConfiguration.Environment

    /// Creates a validator.
    public init(
        verifier: ProviderTokenVerifier,
        tokenHexLength: Int = 64,
        tokenHygiene: TokenHygiene = .clean,
        startedAt: Int64 = 0,
        tokenRules: [TokenRule] = [],
        unregisteredTokens: Set<String> = [],
        unregisteredSince: (@Sendable (Substring) -> Int64?)? = nil,
        disallowedTopics: Set<String> = [],
        environment: MockAPNsConfiguration.Environment = .production
    ) {
        self.disallowedTopics = disallowedTopics
        self.unregisteredTokens = unregisteredTokens
        self.unregisteredSince = unregisteredSince
        self.environment = environment
        self.tokenRules = tokenRules
        self.verifier = verifier
        self.tokenHexLength = tokenHexLength
        self.tokenHygiene = tokenHygiene
        self.startedAt = startedAt
    }

    private static let devicePathPrefix = "/3/device/"

    /// How APNs would answer a push.
    public struct Verdict: Sendable, Equatable {
        /// Why it is rejected, or `nil` when it is accepted.
        public var rejection: APNsReason?
        /// Whether the provider token was checked and valid (a later check may still reject the
        /// push); APNs lifts a connection's one-stream limit after the first such request.
        public var tokenVerified: Bool
        /// For a 410, since when the device token has been invalid, UNIX seconds: the error
        /// body's `timestamp` (in milliseconds).
        public var invalidSince: Int64? = nil
        /// How the push's provider token differs from Apple's documentation where APNs accepts
        /// it anyway (`ProviderTokenVerifier.Identity.irregularity`).
        public var tokenIrregularity: String? = nil
        /// The provider token's `iat` when it verified, UNIX seconds, for recordings.
        public var issuedAt: Int64? = nil
    }

    /// How APNs would answer `push` at time `now` (UNIX seconds) on a connection whose token
    /// history is `tokens`.
    public func verdict(on push: InboundPush, now: Int64, tokens: inout ProviderTokenHistory) -> Verdict {
        let token = DeviceTokenShape(path: push.path, after: Self.devicePathPrefix)
        if let reason = requestLineRejection(push, token: token) {
            return Verdict(rejection: reason, tokenVerified: false)
        }
        let credentials = self.credentials(of: push, now: now, tokens: &tokens)
        guard let identity = credentials.identity else {
            return Verdict(rejection: credentials.rejection, tokenVerified: false)
        }
        var verdict: Verdict
        if let reason = credentials.rejection {
            verdict = Verdict(rejection: reason, tokenVerified: true)
        } else if let reason = headerAndPayloadRejection(
            push,
            token: token,
            key: verifier.hasScopedKeys ? verifier.key(identity.keyID) : nil
        ) {
            verdict = Verdict(rejection: reason, tokenVerified: true)
        } else {
            verdict = deviceTokenVerdict(push, now: now)
            verdict.tokenIrregularity = identity.irregularity
        }
        verdict.issuedAt = identity.issuedAt
        return verdict
    }

    /// Check 4, which broadcasts and channel requests share: the provider token (with its
    /// identity when its signature holds), its key's scope, and the connection's token history.
    public func credentials(
        of push: InboundPush,
        now: Int64,
        tokens: inout ProviderTokenHistory
    ) -> (rejection: APNsReason?, identity: ProviderTokenVerifier.Identity?) {
        switch verifier.verify(authorization: push.authorization, now: now, current: tokens.current) {
        case .failure(let reason):
            return (reason, nil)
        case .success(let identity):
            if verifier.hasScopedKeys, let reason = keyScopeRejection(identity, current: tokens.current) {
                return (reason, identity)
            }
            return (tokens.admit(identity, now: now), identity)
        }
    }

    /// Check 4's key scope: the key's environment, and its relation to the key the connection
    /// adopted (another team is left to the token history, which answers that first).
    private func keyScopeRejection(
        _ identity: ProviderTokenVerifier.Identity,
        current: ProviderTokenVerifier.Identity?
    ) -> APNsReason? {
        guard let key = verifier.key(identity.keyID) else { return nil }
        if let keyEnvironment = key.environment, keyEnvironment != environment { return .badEnvironmentKeyIdInToken }
        guard let current, current.keyID != identity.keyID, current.teamID == identity.teamID else { return nil }
        let adopted = verifier.key(current.keyID)
        return key.isScoped || adopted?.isScoped == true ? .unrelatedKeyIdInToken : nil
    }

    /// Checks 13 and 14: the token's rule, or its fate under the hygiene profile.
    private func deviceTokenVerdict(_ push: InboundPush, now: Int64) -> Verdict {
        if !unregisteredTokens.isEmpty,
            unregisteredTokens.contains(String(push.path.dropFirst(Self.devicePathPrefix.count)).lowercased())
        {
            return Verdict(rejection: .unregistered, tokenVerified: true, invalidSince: startedAt)
        }
        if let unregisteredSince, let since = unregisteredSince(push.path.dropFirst(Self.devicePathPrefix.count)) {
            return Verdict(rejection: .unregistered, tokenVerified: true, invalidSince: since)
        }
        if !tokenRules.isEmpty {
            let token = push.path.dropFirst(Self.devicePathPrefix.count)
            if let rule = tokenRules.first(where: { token.hasPrefix($0.prefix) }) {
                let invalidSince = rule.reason.status == 410 ? startedAt : nil
                return Verdict(rejection: rule.reason, tokenVerified: true, invalidSince: invalidSince)
            }
        }
        switch tokenHygiene.fate(ofHex: push.path.utf8.dropFirst(Self.devicePathPrefix.utf8.count)) {
        case .valid:
            return Verdict(rejection: nil, tokenVerified: true)
        case .otherTopic:
            return Verdict(rejection: .deviceTokenNotForTopic, tokenVerified: true)
        case .unregistered:
            return Verdict(rejection: .unregistered, tokenVerified: true, invalidSince: startedAt)
        case .expires(let afterSeconds):
            let expiry = startedAt + afterSeconds
            guard now >= expiry else { return Verdict(rejection: nil, tokenVerified: true) }
            return Verdict(rejection: .expiredToken, tokenVerified: true, invalidSince: expiry)
        }
    }

    /// Checks 1 to 3: method, path, duplicate headers.
    private func requestLineRejection(_ push: InboundPush, token: DeviceTokenShape?) -> APNsReason? {
        guard push.method == "POST" else { return .methodNotAllowed }
        guard let token else { return .badPath }
        guard token.length > 0 else { return .missingDeviceToken }
        guard !token.hasSlash else { return .badPath }
        return push.hasDuplicateHeader ? .duplicateHeaders : nil
    }

    /// Checks 5 to 12, after the provider token passed.
    private func headerAndPayloadRejection(
        _ push: InboundPush,
        token: DeviceTokenShape?,
        key: ProviderKey?
    ) -> APNsReason? {
        if let id = push.apnsID, !APNsID.isValid(id) { return .badMessageId }

        var pushType = PushType.alert
        if push.pushType != nil {
            guard let known = push.knownPushType else { return .invalidPushType }
            pushType = known
        }
        guard let topic = push.topic, !topic.isEmpty else { return .missingTopic }
        guard Self.isBundleID(topic) else { return .badTopic }
        let suffix = pushType.topicSuffix
        let app = pushType.bundleID(ofTopic: topic)
        if !disallowedTopics.isEmpty, disallowedTopics.contains(String(app)) { return .topicDisallowed }
        if !suffix.isEmpty {
            guard topic.utf8.count > suffix.utf8.count, topic.hasSuffix(suffix) else { return .deviceTokenNotForTopic }
        }
        if let key, !key.covers(bundleID: app) { return .invalidProviderToken }
        guard push.hasValidPriority else { return .badPriority }
        if let expiration = push.expiration {
            guard !expiration.isEmpty, expiration.utf8.count <= 18, expiration.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
            else { return .badExpirationDate }
        }
        if let collapseID = push.collapseID, collapseID.utf8.count > 64 { return .badCollapseId }

        guard let token, token.length == tokenHexLength, token.isHex else { return .badDeviceToken }
        guard push.bodyLength > 0 else { return .payloadEmpty }
        guard push.bodyLength <= pushType.payloadLimit else { return .payloadTooLarge }
        return nil
    }
}

extension PushRequestValidator {
    /// Whether `topic` is shaped like a bundle ID: dot-separated parts of letters, digits, `-`
    /// and `_`, none empty.
    static func isBundleID(_ topic: String) -> Bool {
        var previous = UInt8(ascii: ".")
        for byte in topic.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                guard previous != UInt8(ascii: ".") else { return false }
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                break
            default:
                return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: ".")
    }
}

/// The device token of a `/3/device/<token>` path, read in one pass: the checks on its length,
/// its digits and stray slashes all run on every push.
private struct DeviceTokenShape {
    /// Its length in bytes.
    var length = 0
    /// Whether it holds a `/` (a path APNs does not serve).
    var hasSlash = false
    /// Whether every byte is a hex digit.
    var isHex = true

    /// `nil` when `path` does not start with `prefix`.
    init?(path: String, after prefix: String) {
        guard path.hasPrefix(prefix) else { return nil }
        let start = prefix.utf8.count
        let scanned = path.utf8.withContiguousStorageIfAvailable {
            Self(scanning: UnsafeBufferPointer(rebasing: $0[start...]))
        }
        self = scanned ?? Array(path.utf8)[start...].withUnsafeBufferPointer { Self(scanning: $0) }
    }

    private init(scanning token: UnsafeBufferPointer<UInt8>) {
        length = token.count
        var slashes = 0
        var nonHex = 0
        for index in 0..<token.count {
            let byte = token[index]
            slashes &+= byte == UInt8(ascii: "/") ? 1 : 0
            nonHex &+= isHexDigit(byte) ? 0 : 1
        }
        hasSlash = slashes > 0
        isHex = nonHex == 0
    }
}

@inline(__always)
private func isHexDigit(_ byte: UInt8) -> Bool {
    byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6
}
