import Synchronization

/// Asks a running engine to stop early (Ctrl-C); safe to set from a signal handler's queue.
public final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Creates a flag that is not set.
    public init() {}

    /// Requests the stop.
    public func set() {
        flag.store(true, ordering: .relaxed)
    }

    /// Whether a stop was requested.
    public var isSet: Bool {
        flag.load(ordering: .relaxed)
    }
}
