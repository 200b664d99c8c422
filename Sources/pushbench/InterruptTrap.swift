import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into a call of `onInterrupt`, so a run can stop
/// submitting, write what it measured and exit non-zero instead of dying mid-report. The
/// handlers stay installed while the trap is alive.
final class InterruptTrap {
    private var sources: [DispatchSourceSignal] = []
    /// A queue of its own: its thread is made on demand, so the handler runs even while
    /// workers fill the global pool (a budget simulation keeps every core's thread busy).
    private let queue = DispatchQueue(label: "pushbench.interrupt")
    private let received = ReceivedSignal()

    init(onInterrupt: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            Glibc.signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [received] in
                _ = received.number.compareExchange(expected: 0, desired: signalNumber, ordering: .relaxed)
                onInterrupt()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal that arrived, if one did.
    var signal: Int32? {
        let number = received.number.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// The exit status for a run that was interrupted (128 + SIGINT, the shell's convention).
    static let interruptedStatus: Int32 = 130
}

/// The first signal a trap received, shared with its handlers.
private final class ReceivedSignal: Sendable {
    let number = Atomic<Int32>(0)
}
