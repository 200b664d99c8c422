import Workload

/// The names pushes are grouped by in the outcome mix, and which of them are key events whose
/// display lag recommendations keep short.
public struct PushLabels: Sendable, Equatable {
    /// The names, indexed by `BudgetPush.label`.
    public let names: [String]
    /// Whether each name is a key event.
    public let isKey: [Bool]

    /// Creates labels; `keys` must be among `names`.
    public init(names: [String], keys: Set<String>) {
        self.names = names
        isKey = names.map { keys.contains($0) }
    }

    /// Every scenario event kind, indexed by `EventKind.ordinal`; key events are the kinds'
    /// `keyEventKinds` for the activity kinds given.
    public static func eventKinds(keysOf kinds: [ActivityKind]) -> PushLabels {
        PushLabels(
            names: EventKind.allCases.map(\.rawValue),
            keys: Set(kinds.flatMap(\.keyEventKinds).map(\.rawValue))
        )
    }

    /// `aps.event` values, for traffic whose event kinds are unknown; `start` and `end` are key.
    public static let phases = PushLabels(names: ["start", "update", "end"], keys: ["start", "end"])

    /// The index of `phase` in `phases`.
    public static func phaseLabel(_ phase: LifecyclePhase) -> Int {
        switch phase {
        case .start: 0
        case .update: 1
        case .end: 2
        }
    }
}
