/// When one thing happened on the book's clock: before the clock started, at a time on it, or
/// not yet. Ordered so, as the book compares them: a token learned before the start is known to
/// every call, and a call not yet sent owes nothing.
enum Moment: Comparable, Sendable {
    case beforeTheStart
    case at(Int64)
    case notYet
}

/// A `Moment` for each of a run of things (each token learned, each call sent, each token's
/// last update), kept as one `Int64` an entry, as the memory figures of a million devices want,
/// with "before the start" and "not yet" behind these accessors rather than read as
/// `Int64.min` and `Int64.max` by every caller.
struct Moments: Sendable {
    private var ns: [Int64]

    /// `count` entries, each `moment` to begin with.
    init(count: Int, all moment: Moment) {
        ns = Array(repeating: Self.stored(moment), count: count)
    }

    /// Whether there are no entries (the book keeps none of a kind it does not need).
    var isEmpty: Bool { ns.isEmpty }

    /// Entry `index`'s moment.
    subscript(index: Int) -> Moment {
        get {
            switch ns[index] {
            case .min: return .beforeTheStart
            case .max: return .notYet
            case let time: return .at(time)
            }
        }
        set { ns[index] = Self.stored(newValue) }
    }

    /// Entry `index`'s time on the clock, when it has one.
    func time(of index: Int) -> Int64? {
        guard case .at(let time) = self[index] else { return nil }
        return time
    }

    private static func stored(_ moment: Moment) -> Int64 {
        switch moment {
        case .beforeTheStart: return .min
        case .at(let time): return min(max(time, .min + 1), .max - 1)
        case .notYet: return .max
        }
    }
}
