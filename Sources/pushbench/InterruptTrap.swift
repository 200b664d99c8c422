import ArgumentParser
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into a call of `onInterrupt`, so a run can stop
/// submitting, write what it measured and exit non-zero instead of dying mid-report. The
/// handler stays in force while the trap is alive; before a command sets one, and after, a
/// signal ends the process at once (`InterruptTrap.exitOnSignal`).
final class InterruptTrap {
    private let received = ReceivedSignal()

    init(onInterrupt: @escaping @Sendable () -> Void) {
        let received = self.received
        Self.route.withLock { handler in
            handler = { signalNumber in
                _ = received.number.compareExchange(expected: 0, desired: signalNumber, ordering: .relaxed)
                onInterrupt()
            }
        }
    }

    deinit {
        Self.route.withLock { $0 = nil }
    }

    /// The first signal that arrived, if one did.
    var signal: Int32? {
        let number = received.number.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// Ends the command with 130 after Ctrl-C or 143 after SIGTERM (`ExitStatus.interrupted(by:)`)
    /// when a signal arrived; does nothing when none did.
    func throwIfInterrupted() throws {
        if let signal { throw ExitCode(ExitStatus.interrupted(by: signal)) }
    }
}

extension InterruptTrap {
    /// Takes SIGINT and SIGTERM for the process's life, before any other thread starts. A
    /// command's trap, while it lives, hears them; without one, the process ends at once with 130
    /// or 143, as the exit statuses' table says, after passing the signal on to its child
    /// processes (`hotpath`'s openssl and its other allocator's run), so none outlives it.
    ///
    /// One source a signal, made once: libdispatch on Linux delivers a signal to one source only,
    /// so a trap replaces the handler, never the source.
    static func exitOnSignal() {
        sources = [SIGINT, SIGTERM].map { signalNumber in
            Glibc.signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                if let handler = route.withLock({ $0 }) { return handler(signalNumber) }
                for child in childProcesses() { kill(child, signalNumber) }
                Glibc._exit(ExitStatus.interrupted(by: signalNumber))
            }
            source.resume()
            return source
        }
    }

    /// A queue of its own: its thread is made on demand, so the handler runs even while workers
    /// fill the global pool (a budget simulation, `hotpath`, keep every core's thread busy).
    private static let queue = DispatchQueue(label: "pushbench.interrupt")

    /// The signal sources, kept for the process's life; set once, before any other thread.
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// The live trap's handler, if a command set one.
    private static let route = Mutex<(@Sendable (Int32) -> Void)?>(nil)

    /// This process's children, as every thread's `/proc/self/task/<tid>/children` lists them.
    private static func childProcesses() -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.flatMap { task -> [pid_t] in
            let text = (try? String(contentsOfFile: "/proc/self/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }
}

/// The first signal a trap received, shared with its handlers.
private final class ReceivedSignal: Sendable {
    let number = Atomic<Int32>(0)
}
