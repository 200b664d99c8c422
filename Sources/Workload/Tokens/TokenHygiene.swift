import Encodings

/// Which synthetic tokens are dead or misfiled, so that runs exercise a sender's token hygiene.
///
/// Real fan-outs meet tokens that APNs rejects with 410 `Unregistered` (the app is gone), 410
/// `ExpiredToken` (Live Activity tokens die mid-run: Pushboy logged 4,268 in one two-hour
/// window, `docs/apns.md` §1.7) and 400 `DeviceTokenNotForTopic`. A token's fate
/// is a function of its hex digits alone, so the mock (which sees only the token) and the
/// workload (which can predict a run's rejections from the seed) agree without sharing state.
public struct TokenHygiene: Sendable, Equatable {
    /// Share of tokens that are unregistered from the start (410 `Unregistered`).
    public var unregisteredFraction: Double
    /// Share of tokens that expire during the run (410 `ExpiredToken` from then on).
    public var expiringFraction: Double
    /// Share of tokens that belong to another app's topic (400 `DeviceTokenNotForTopic`).
    public var otherTopicFraction: Double
    /// Expiring tokens die at a point spread evenly over this many seconds after the run starts.
    public var expiryWindowSeconds: Int64

    /// Every token valid: APNs as a freshly registered population sees it.
    public static let clean = TokenHygiene()

    /// What happens to one token.
    public enum Fate: Sendable, Equatable {
        /// Accepted for the whole run.
        case valid
        /// Rejected from the start with 410 `Unregistered`.
        case unregistered
        /// Accepted until this many seconds after the run starts, then 410 `ExpiredToken`.
        case expires(afterSeconds: Int64)
        /// Rejected with 400 `DeviceTokenNotForTopic`.
        case otherTopic
    }

    /// Creates a hygiene profile.
    /// - Throws: `WorkloadError` when a fraction is outside 0...1, they add up to more than 1,
    ///   or the window is not positive.
    public init(
        unregisteredFraction: Double = 0,
        expiringFraction: Double = 0,
        otherTopicFraction: Double = 0,
        expiryWindowSeconds: Int64 = 60
    ) throws {
        for (name, value) in [
            ("unregistered", unregisteredFraction), ("expiring", expiringFraction), ("other-topic", otherTopicFraction),
        ] where !(0...1).contains(value) {
            throw WorkloadError("the \(name) fraction must be between 0 and 1, not \(value)")
        }
        guard unregisteredFraction + expiringFraction + otherTopicFraction <= 1 else {
            throw WorkloadError("the unregistered, expiring and other-topic fractions add up to more than 1")
        }
        guard expiryWindowSeconds > 0 else {
            throw WorkloadError("the expiry window must be at least 1 second, not \(expiryWindowSeconds)")
        }
        self.unregisteredFraction = unregisteredFraction
        self.expiringFraction = expiringFraction
        self.otherTopicFraction = otherTopicFraction
        self.expiryWindowSeconds = expiryWindowSeconds
    }

    private init() {
        unregisteredFraction = 0
        expiringFraction = 0
        otherTopicFraction = 0
        expiryWindowSeconds = 60
    }

    /// Whether every token is valid, so a server can skip the check.
    public var isClean: Bool { unregisteredFraction + expiringFraction + otherTopicFraction == 0 }

    /// The fate of the token whose hex digits (any case) are `hex`.
    public func fate(ofHex hex: some Sequence<UInt8>) -> Fate {
        guard !isClean else { return .valid }
        // FNV-1a over the lowercase digits, then SplitMix64's finaliser for two uniform draws.
        let first = SplitMix64.mix(FNV1a.hash(hex.lazy.map { $0 | 0x20 }))
        let share = Double(first >> 11) * 0x1p-53
        if share < unregisteredFraction { return .unregistered }
        if share < unregisteredFraction + otherTopicFraction { return .otherTopic }
        if share < unregisteredFraction + otherTopicFraction + expiringFraction {
            let point = Double(SplitMix64.mix(first) >> 11) * 0x1p-53
            return .expires(afterSeconds: Int64(point * Double(expiryWindowSeconds)))
        }
        return .valid
    }

    /// The fate of token `index` of `tokens`.
    public func fate(of tokens: TokenSet, at index: Int) -> Fate {
        withUnsafeTemporaryAllocation(byteCount: tokens.hexLength, alignment: 8) { buffer in
            tokens.writeHex(at: index, to: buffer.baseAddress!)
            return fate(ofHex: UnsafeRawBufferPointer(buffer))
        }
    }
}
