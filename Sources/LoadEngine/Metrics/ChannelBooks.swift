import Histogram

/// A run's broadcast channel requests (create before, delete after), counted apart from its
/// pushes: they go to APNs' channel management API on a connection of their own.
public struct ChannelBooks: Sendable, Equatable {
    /// Channels created (201).
    public var created = 0
    /// Channels deleted (204).
    public var deleted = 0
    /// Requests refused or failed, by `create`/`delete` and reason (`create CannotCreateChannelConfig`).
    public var failedByReason: [String: Int] = [:]
    /// From each request's start to its answer, microseconds.
    public var latency = Histogram.latency(digits: .three)

    /// Creates empty books.
    public init() {}

    /// Requests made.
    public var requests: Int { created + deleted + failedByReason.values.reduce(0, +) }

    /// Adds `other`'s books (another shard's).
    public mutating func add(_ other: ChannelBooks) {
        created += other.created
        deleted += other.deleted
        failedByReason.merge(other.failedByReason, uniquingKeysWith: +)
        latency.add(other.latency)
    }
}
