import CProcess

/// A worker's name on the Dispatch thread it runs on, `pb-worker-N`, while it runs: what
/// `top -H`, gdb and perf show, and how `run --perf` tells the sender's threads from the
/// embedded mock's in the same process. The pool thread gets its own name back afterwards.
public enum WorkerThreadName {
    /// What every worker thread's name starts with.
    public static let prefix = "pb-worker-"

    /// Runs `body` with the current thread named for worker `index`.
    static func whileRunning<T>(worker index: Int, _ body: () throws -> T) rethrows -> T {
        var previous = [CChar](repeating: 0, count: 16)
        let hadName = pb_get_thread_name(&previous) == 0
        _ = pb_set_thread_name(prefix + String(index))
        defer { if hadName { _ = pb_set_thread_name(previous) } }
        return try body()
    }
}
