import Wire

/// Rejections counted by their APNs reason, in a fixed array indexed by `APNsReason.index`: a
/// documented reason moves an integer. Only what `APNsReason` does not name (a reason APNs has
/// not documented, or an answer without one, as `HTTP <status>`) is kept by its text.
struct RejectionCounts: Sendable, Equatable {
    private var known = [Int](repeating: 0, count: APNsReason.allCases.count)
    private var unnamed: [String: Int] = [:]

    /// Counts one answer with `status` (not 200) and error `body`.
    mutating func count(status: Int, body: [UInt8]) {
        guard let text = APNsErrorBody(bytes: body)?.reason else {
            unnamed["HTTP \(status)", default: 0] += 1
            return
        }
        if let reason = APNsReason(rawValue: text) {
            known[reason.index] += 1
        } else {
            unnamed[text, default: 0] += 1
        }
    }

    /// Adds another worker's counts.
    mutating func add(_ other: RejectionCounts) {
        for index in known.indices { known[index] += other.known[index] }
        unnamed.merge(other.unnamed, uniquingKeysWith: +)
    }

    /// The counts by the reason's text, as reports and summaries name them: every reason counted
    /// at least once.
    var byReason: [String: Int] {
        var named = unnamed
        for (index, count) in known.enumerated() where count > 0 {
            named[APNsReason(index: index).rawValue, default: 0] += count
        }
        return named
    }
}
