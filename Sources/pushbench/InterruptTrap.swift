import Dispatch

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

    init(onInterrupt: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler(handler: onInterrupt)
            source.resume()
            sources.append(source)
        }
    }

    /// The exit status for a run that was interrupted (128 + SIGINT, the shell's convention).
    static let interruptedStatus: Int32 = 130
}
