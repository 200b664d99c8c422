import Encodings

/// Device tokens that say whose they are: the fleet PushBench plays mints every token a device
/// holds, and reads back from the token alone which device it belongs to, which of its tokens it
/// is, and that the fleet minted it at all. A push is then booked with no index of tokens: no
/// string a token, no dictionary, and any process that shares the seed can book any device's
/// push (a fleet spread over several mocks needs nothing more).
///
/// A token is 32 bytes, written as 64 hex digits like Apple's, and as random-looking: its first
/// three words are a keyed hash of what it describes (the check), and its last word is what it
/// describes masked with a keyed hash of the first three. Reading a token unmasks the last word
/// and recomputes the check; a token the mint never made fails it (all 192 bits must agree). The
/// hash is SplitMix64's finaliser keyed by the seed: enough to tell PushBench's tokens from any
/// other's and to look random, not a cipher against someone forging them.
public struct TokenMint: Sendable, Hashable {
    /// Which of a device's tokens: the one a start is pushed to, or the one an activity's updates
    /// are pushed to. A device re-issuing its push-to-start token, or an activity's update token
    /// rotating, makes the next `generation` of the same kind.
    public enum Kind: UInt8, Sendable {
        case pushToStart = 1
        case update = 2
    }

    /// What a token says of itself.
    public struct Reading: Sendable, Hashable {
        /// The device (and its activity: one a device) it belongs to.
        public var device: Int
        public var kind: Kind
        /// 0 for the first token of its kind; 1 once re-issued or rotated.
        public var generation: Int

        /// What a token of `device`'s `kind`, generation `generation`, says.
        public init(device: Int, kind: Kind, generation: Int) {
            self.device = device
            self.kind = kind
            self.generation = generation
        }
    }

    /// Hex digits of a token: 32 bytes, as Apple's are today.
    public static let hexLength = 64
    /// Devices a mint can name: the payload keeps 32 bits for the device.
    public static let maxDevices = 1 << 32

    private let key0: UInt64
    private let key1: UInt64

    /// The mint of tokens derived from `seed`: the same seed mints and reads the same tokens.
    public init(seed: UInt64) {
        key0 = SplitMix64.mix(seed ^ 0x544F_4B45_4E4D_494E)
        key1 = SplitMix64.mix(key0 ^ 0x5245_4144_4241_434B)
    }

    /// The hex token of `device`'s `kind` token, generation `generation` (0-255).
    public func hex(device: Int, kind: Kind, generation: Int = 0) -> String {
        String(unsafeUninitializedCapacity: Self.hexLength) { buffer in
            let payload = Self.payload(device: device, kind: kind, generation: generation)
            let check = self.check(payload)
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            HexDigits.store(check.0, at: base)
            HexDigits.store(check.1, at: base + 16)
            HexDigits.store(check.2, at: base + 32)
            HexDigits.store(payload ^ mask(check.0, check.2), at: base + 48)
            return Self.hexLength
        }
    }

    /// What `token` (64 hex digits, either case) says of itself, if this mint made it; `nil` for
    /// any other text.
    public func read(_ token: some StringProtocol) -> Reading? {
        if let reading = token.utf8.withContiguousStorageIfAvailable(read(hexDigits:)) { return reading }
        return Array(token.utf8).withUnsafeBufferPointer(read(hexDigits:))
    }

    /// `read` of the token's ASCII digits.
    public func read(hexDigits digits: UnsafeBufferPointer<UInt8>) -> Reading? {
        guard digits.count == Self.hexLength else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for index in 0..<4 {
            guard let word = Self.word(digits, from: 16 * index) else { return nil }
            switch index {
            case 0: words.0 = word
            case 1: words.1 = word
            case 2: words.2 = word
            default: words.3 = word
            }
        }
        let payload = words.3 ^ mask(words.0, words.2)
        let check = self.check(payload)
        guard check.0 == words.0, check.1 == words.1, check.2 == words.2,
            payload >> 48 == Self.version, let kind = Kind(rawValue: UInt8(truncatingIfNeeded: payload >> 32))
        else { return nil }
        return Reading(
            device: Int(payload & 0xFFFF_FFFF),
            kind: kind,
            generation: Int(UInt8(truncatingIfNeeded: payload >> 40))
        )
    }

    /// The layout's version, in the payload's top 16 bits: a reader checks it with the rest.
    private static let version: UInt64 = 1

    private static func payload(device: Int, kind: Kind, generation: Int) -> UInt64 {
        precondition(device >= 0 && device < maxDevices, "device \(device) outside what a token can name")
        precondition(generation >= 0 && generation < 256, "generation \(generation) outside 0-255")
        return version << 48 | UInt64(generation) << 40 | UInt64(kind.rawValue) << 32 | UInt64(device)
    }

    /// The check words of `payload`: a keyed hash, different in each word.
    private func check(_ payload: UInt64) -> (UInt64, UInt64, UInt64) {
        let seed = SplitMix64.mix(payload &+ key0)
        return (
            SplitMix64.mix(seed ^ key1),
            SplitMix64.mix(seed ^ (key1 &+ 0x9E37_79B9_7F4A_7C15)),
            SplitMix64.mix(seed ^ (key1 &+ 0x3C6E_F372_FE94_F82A))
        )
    }

    /// What masks the payload: a keyed hash of the first and third check words.
    private func mask(_ first: UInt64, _ third: UInt64) -> UInt64 { SplitMix64.mix(first ^ key1 ^ (third &* 31)) }

    /// The 64-bit word of the 16 hex digits of `digits` from `offset`, or `nil` at a non-digit.
    private static func word(_ digits: UnsafeBufferPointer<UInt8>, from offset: Int) -> UInt64? {
        var word: UInt64 = 0
        for index in offset..<(offset + 16) {
            let character = digits[index]
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character &- UInt8(ascii: "A") &+ 10
            default: return nil
            }
            word = word << 4 | UInt64(nibble)
        }
        return word
    }
}
