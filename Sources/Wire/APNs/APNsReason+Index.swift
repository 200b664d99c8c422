extension APNsReason {
    /// This reason's place among `APNsReason.allCases`, so that a counter keeps one slot a reason
    /// in a fixed array, as h2load does, instead of hashing the reason's text on every answer.
    public var index: Int { Self.ordered.firstIndex(of: self)! }

    /// The reason whose place among `APNsReason.allCases` is `index`.
    public init(index: Int) { self = Self.ordered[index] }

    /// `allCases` once, in order, so that `index` walks a stored array.
    private static let ordered = allCases
}
