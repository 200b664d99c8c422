/// A problem with a workload's description (a scenario file, a shard, a token option), said in
/// words a user can act on.
public struct WorkloadError: Error, Equatable, CustomStringConvertible {
    /// What is wrong and, where it helps, what would be right.
    public let description: String

    /// Creates an error with its message.
    public init(_ description: String) {
        self.description = description
    }
}
