import Dispatch
import Synchronization

/// Measures how often `threads` threads together can run an operation, in operations and bytes
/// per second.
///
/// Each thread (Dispatch `concurrentPerform`) builds its own operation, so per-thread state such
/// as a signer or an encoder buffer is never shared, runs it unmeasured for a short warm-up, then
/// in batches until `seconds` have passed. The rate is the sum of each thread's count over its
/// own elapsed time, so a thread that starts late does not dilute the others.
public enum ThroughputProbe {
    /// A measured rate.
    public struct Rate: Sendable, Equatable {
        /// Operations per second, all threads together.
        public var operationsPerSecond: Double
        /// Bytes the operations produced per second, all threads together.
        public var bytesPerSecond: Double
    }

    /// One thread's operation: runs `iterations` times and returns how many bytes it produced.
    /// The loop lives inside the operation so that the probe's own cost (a closure call, the
    /// checks on state the closure captured) is paid once per batch, not once per operation.
    public typealias Operation = (_ iterations: Int) throws -> Int

    private static let batch = 256

    /// Runs `makeOperation()` on each of `threads` threads for about `seconds`.
    public static func measure(
        threads: Int,
        seconds: Double,
        makeOperation: @Sendable () throws -> Operation
    ) throws -> Rate {
        let results = Mutex<[Result<Rate, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let result = Result { try runOneThread(seconds: seconds, operation: makeOperation()) }
            results.withLock { $0.append(result) }
        }
        var total = Rate(operationsPerSecond: 0, bytesPerSecond: 0)
        for result in results.withLock({ $0 }) {
            let rate = try result.get()
            total.operationsPerSecond += rate.operationsPerSecond
            total.bytesPerSecond += rate.bytesPerSecond
        }
        return total
    }

    private static func runOneThread(seconds: Double, operation: Operation) throws -> Rate {
        let warmUpEnd = DispatchTime.now().uptimeNanoseconds + UInt64(min(0.2, seconds / 5) * 1e9)
        while DispatchTime.now().uptimeNanoseconds < warmUpEnd {
            _ = try operation(batch)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let end = start + UInt64(seconds * 1e9)
        var operations = 0
        var bytes = 0
        var now = start
        while now < end {
            bytes &+= try operation(batch)
            operations += batch
            now = DispatchTime.now().uptimeNanoseconds
        }
        let elapsed = Double(now - start) / 1e9
        return Rate(operationsPerSecond: Double(operations) / elapsed, bytesPerSecond: Double(bytes) / elapsed)
    }
}
