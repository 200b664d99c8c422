import Basics
import Synchronization
import Transport

#if canImport(Glibc)
import Glibc
#endif

/// The way into a running run's figures, for the progress line and for `/metrics`: a reader
/// asks, each worker answers with a `LiveSnapshot` of its own books at its next turn of the
/// loop, and the reader adds them up.
///
/// Workers keep their counters as plain values in their own thread and never take a lock or
/// touch an atomic per push: between requests a worker only loads one atomic per turn of its
/// loop (a turn lasts at most `LoadWorker.longestWait`). Readers wait for the answers at most
/// `answerWait`; a worker that has not answered by then (it is opening its connections, say)
/// is counted with its previous answer.
public final class LiveMetrics: Sendable {
    private struct State {
        var answers: [LiveSnapshot?] = []
        /// The request each worker answered last.
        var answered: [Int] = []

        /// Whether worker `index` has given its last answer.
        func isFinished(_ index: Int) -> Bool { answers[index]?.workersFinished == 1 }
    }

    /// The latest request; a worker that answered an earlier one answers again.
    private let requested = Atomic<Int>(0)
    private let state = Mutex(State())
    /// How long a reader waits for the workers' answers.
    static let answerWaitNanos: UInt64 = 100_000_000

    /// Creates the entry to a run that has not started: until it does, reads are empty.
    public init() {}

    /// Called by the engine as the run starts with `workers` workers.
    func begin(workers: Int) {
        state.withLock { state in
            state.answers = Array(repeating: nil, count: workers)
            state.answered = Array(repeating: 0, count: workers)
        }
    }

    /// For a worker: the request to answer, when one came after `answered`.
    func request(after answered: Int) -> Int? {
        let latest = requested.load(ordering: .acquiring)
        return latest != answered ? latest : nil
    }

    /// A worker's answer to request `request`, or its last one (`finished`).
    func answer(_ snapshot: LiveSnapshot, worker: Int, request: Int, finished: Bool = false) {
        var snapshot = snapshot
        snapshot.workersFinished = finished ? 1 : 0
        state.withLock { state in
            state.answers[worker] = snapshot
            state.answered[worker] = request
        }
    }

    /// The run's figures now: asks every worker and adds their answers up, waiting for them at
    /// most `answerWaitNanos`. Once every worker has finished it is the run's final figures.
    public func read() -> LiveSnapshot {
        let request = requested.add(1, ordering: .acquiringAndReleasing).newValue
        let deadline = monotonicNanos() + Self.answerWaitNanos
        while !allAnswered(request), monotonicNanos() < deadline { usleep(1_000) }
        return state.withLock { state in
            var total = LiveSnapshot()
            for answer in state.answers {
                if let answer { total.add(answer) }
            }
            total.workers = state.answers.count
            return total
        }
    }

    private func allAnswered(_ request: Int) -> Bool {
        state.withLock { state in
            state.answered.indices.allSatisfy { state.isFinished($0) || state.answered[$0] >= request }
        }
    }
}
