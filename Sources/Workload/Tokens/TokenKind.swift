/// The kinds of identifiers a Live Activity sender addresses, each its own population.
///
/// A device has a push-to-start token (to start activities), each activity has its own update
/// token (not the device token), and iOS 18 broadcast pushes go to a channel id. The kinds are
/// drawn from separate streams of the same seed, so token `i` of one kind says nothing about
/// token `i` of another.
public enum TokenKind: String, Sendable, CaseIterable {
    /// An app's device token, for ordinary pushes.
    case device
    /// A push-to-start token (iOS 17.2+): `start` events go to it.
    case pushToStart = "push-to-start"
    /// A per-activity update token: `update` and `end` events go to it.
    case activityUpdate = "update"
    /// A broadcast channel id (iOS 18+), written in base64 as APNs returns it.
    case channel

    /// Mixed into the seed so each kind is an independent population. Device tokens use the
    /// seed unchanged.
    @usableFromInline
    var seedDomain: UInt64 {
        switch self {
        case .device: 0
        case .pushToStart: 0x7057_5354_4152_5421
        case .activityUpdate: 0x5550_4441_5445_2121
        case .channel: 0x4348_414E_4E45_4C21
        }
    }

    /// The raw length APNs uses today: 32 bytes for tokens, 16 for channel ids. Apple says not
    /// to rely on either, so every set takes a length.
    public var defaultByteCount: Int { self == .channel ? 16 : 32 }
}
