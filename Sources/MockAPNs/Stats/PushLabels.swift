import Wire

/// How `/stats` names a push's `apns-push-type`: a known type, `absent`, or `invalid`, so that a
/// client sending garbage cannot grow the counters without bound. An index into a counter array,
/// so that counting a push neither makes nor hashes a String; the name is given at a snapshot.
struct PushTypeLabel: Equatable {
    /// Its place among `names`.
    let index: Int

    /// The label of `push`'s header, read from what `InboundPush` already parsed.
    init(_ push: InboundPush) {
        guard push.pushType != nil else {
            self = .absent
            return
        }
        guard let known = push.knownPushType else {
            self = .invalid
            return
        }
        // A Live Activity push is nearly every push here: found without a search.
        index = known == .liveactivity ? Self.liveActivityIndex : Self.known.firstIndex(of: known)!
    }

    private init(index: Int) {
        self.index = index
    }

    /// A push without `apns-push-type`, and one naming no known type.
    static let absent = PushTypeLabel(index: known.count)
    static let invalid = PushTypeLabel(index: known.count + 1)

    /// The labels' names, by index: the known types, then `absent` and `invalid`.
    static let names = known.map(\.rawValue) + ["absent", "invalid"]

    private static let known = PushType.allCases
    private static let liveActivityIndex = known.firstIndex(of: .liveactivity)!
}

/// How `/stats` names a push's `apns-priority`: one APNs accepts, `absent`, or `invalid`. An
/// index into a counter array, named at a snapshot.
enum PriorityLabel: Int, CaseIterable {
    case ten, five, one, absent, invalid

    /// The label of `apns-priority`'s value as sent.
    init(_ value: String?) {
        switch value {
        case nil: self = .absent
        case "10": self = .ten
        case "5": self = .five
        case "1": self = .one
        default: self = .invalid
        }
    }

    /// The name `/stats` gives it.
    var name: String {
        switch self {
        case .ten: "10"
        case .five: "5"
        case .one: "1"
        case .absent: "absent"
        case .invalid: "invalid"
        }
    }
}
