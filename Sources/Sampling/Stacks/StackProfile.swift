/// What sampling a sender's stacks found, with how it was sampled: the flame graph, the
/// top functions and the shares by class of code are all drawn from it.
public struct StackProfile: Sendable, Equatable {
    /// The samples, each stack rooted at the process (or, for a run, at `pushbench`).
    public var stacks: FoldedStacks
    /// Samples a second on each CPU (`perf record -F`).
    public var frequencyHz: Int
    /// Whose stacks these are, in a few words (`the sender and its descendants`).
    public var scope: String
    /// CPU seconds perf itself used while sampling: its cost beside the sender's.
    public var perfCPUSeconds: Double

    /// A profile.
    public init(stacks: FoldedStacks, frequencyHz: Int, scope: String, perfCPUSeconds: Double) {
        self.stacks = stacks
        self.frequencyHz = frequencyHz
        self.scope = scope
        self.perfCPUSeconds = perfCPUSeconds
    }
}
