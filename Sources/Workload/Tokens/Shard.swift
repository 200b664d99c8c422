/// One of `count` equal parts of a population, so that many machines can share a run.
///
/// Shard `i` of `N` holds the contiguous indices `[total·i/N, total·(i+1)/N)`. The shards are
/// disjoint, cover the population exactly, differ in size by at most one, and concatenating
/// their outputs in shard order reproduces the single-machine output byte for byte. Indices are
/// 0-based, as Kubernetes' `JOB_COMPLETION_INDEX` is.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// This shard's number, `0..<count`.
    public let index: Int
    /// How many shards the population is split into.
    public let count: Int

    /// The whole population as one shard.
    public static let whole = Shard(validIndex: 0, count: 1)

    /// Creates shard `index` of `count`.
    /// - Throws: `WorkloadError` when `count < 1` or `index` is outside `0..<count`.
    public init(index: Int, count: Int) throws {
        guard count >= 1 else { throw WorkloadError("shard count must be at least 1, not \(count)") }
        guard (0..<count).contains(index) else {
            throw WorkloadError("shard index must be 0 to \(count - 1) for \(count) shards, not \(index)")
        }
        self.init(validIndex: index, count: count)
    }

    /// Parses `i/N`, such as `0/4`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw WorkloadError("a shard is written i/N with 0 ≤ i < N, such as 0/4; '\(text)' is not")
        }
        try self.init(index: index, count: count)
    }

    private init(validIndex: Int, count: Int) {
        self.index = validIndex
        self.count = count
    }

    /// The indices of a population of `total` that belong to this shard.
    public func range(in total: Int) -> Range<Int> {
        Self.partition(index, of: count, total: total)
    }

    /// Part `part` of `parts` contiguous, near-equal parts of `0..<total`; also how a cohort's
    /// activities are split into fan-out groups.
    static func partition(_ part: Int, of parts: Int, total: Int) -> Range<Int> {
        func bound(_ part: Int) -> Int {
            let (high, low) = total.multipliedFullWidth(by: part)
            return Int(truncatingIfNeeded: parts.dividingFullWidth((high, low)).quotient)
        }
        return bound(part)..<bound(part + 1)
    }

    public var description: String { "\(index)/\(count)" }
}
