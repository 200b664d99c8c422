import ArrivalMatching
import CProcess
import Foundation
import Sampling
import SealedNetwork
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The sender `profile` runs: a child process in a process group of its own, its output in
/// files, and every descendant reaped by this process, which is made a child subreaper first,
/// so the CPU time of a grandchild that outlives its parent is counted too. It never outlives
/// PushBench: the kernel kills it when PushBench dies, even by SIGKILL, and a watchdog process
/// kills its group then (`ChildLaunch`).
///
/// A thread waits for every descendant (`wait4`) and adds up what the kernel accounts for each
/// one it reaps: user and system time, each process's own and its waited-for children's. (Not
/// its `ru_maxrss`: a spawned child keeps its parent's peak from before its exec.) Nothing else
/// in the process may wait for children while one runs.
public final class SenderProcess: Sendable {
    /// How the sender ended.
    public enum Ending: Sendable, Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal killed it.
        case signalled(Int32)

        /// The shell's number for it: the status, or 128 + the signal.
        public var shellStatus: Int32 {
            switch self {
            case .exited(let status): status
            case .signalled(let signal): 128 + signal
            }
        }
    }

    /// What the kernel accounted for the reaped processes.
    public struct Accounting: Sendable, Equatable {
        /// User and system CPU seconds of every reaped descendant.
        public var userSeconds = 0.0
        public var systemSeconds = 0.0
        /// Processes reaped.
        public var reaped = 0
    }

    private struct State {
        var ending: Ending?
        var accounting = Accounting()
        var allReaped = false
        var signalsSent: Set<Int32> = []
    }

    /// Children of this process that are not the sender's (perf sampling it, the group's
    /// watchdog): reaped with the rest, but neither counted nor signalled.
    public let apart: Set<pid_t>

    /// The sender's process ID, which is also its process group's.
    public let pid: pid_t
    /// The listening sockets its sealed network handed out, when it runs in one.
    public let sealedListeners: [SealedNetwork.Listener]
    private let state = Mutex(State())

    /// Starts `command` (its first element found on `PATH`) with `environment`, its standard
    /// input empty and its output appended to `outputPath` and `errorPath`, as `ChildLaunch`
    /// starts a child. `apart` are this process's children that are not the sender's. With
    /// `network`, it runs sealed in that network, whose listeners are then ready to receive.
    /// - Throws: `ProfileError.systemCall` when this process cannot become a subreaper or the
    ///   command cannot be started, or its network cannot be sealed.
    public init(
        command: [String],
        environment: [String: String],
        outputPath: String,
        errorPath: String,
        apart: Set<pid_t> = [],
        sealedIn network: SealedNetwork? = nil
    ) throws {
        guard pb_become_child_subreaper() == 0 else { throw ProfileError.failure("cannot become a child subreaper") }
        let pid: pid_t
        let watchdog: pid_t
        do {
            let start = { (seal: UnsafePointer<pb_seal>?) throws(ChildLaunch.Failure) in
                try ChildLaunch.start(
                    command,
                    environment: environment,
                    outputPath: outputPath,
                    errorPath: errorPath,
                    diesWithThisProcess: true,
                    seal: seal
                )
            }
            pid = try network.map { try $0.withSeal { try start($0) } } ?? start(nil)
            watchdog = try ChildLaunch.watch(group: pid)
        } catch let failure as ChildLaunch.Failure {
            if let network, failure.sealStep != PB_SEAL_EXEC {
                throw ProfileError.systemCall(
                    "\(network.failure(step: failure.sealStep, errorNumber: failure.errorNumber))"
                )
            }
            throw ProfileError.failure("cannot start \(command[0])", errno: failure.errorNumber)
        }
        var sealed: (listeners: [SealedNetwork.Listener], doorman: pid_t) = ([], 0)
        if let network {
            do {
                sealed = try network.receiveListeners()
            } catch {
                kill(-pid, SIGKILL)
                throw ProfileError.systemCall("\(error)")
            }
        }
        self.pid = pid
        sealedListeners = sealed.listeners
        // The doorman of a sealed network is PushBench's helper inside, not the sender's.
        self.apart = apart.union([watchdog] + (sealed.doorman > 0 ? [sealed.doorman] : []))
        Thread.detachNewThread { [self] in reapAll() }
    }

    /// How the sender ended, once it has.
    public var ending: Ending? { state.withLock { $0.ending } }
    /// Whether the sender and every descendant have been reaped.
    public var allReaped: Bool { state.withLock { $0.allReaped } }
    /// What the kernel accounted for the processes reaped so far.
    public var accounting: Accounting { state.withLock { $0.accounting } }
    /// Whether `signal` was sent to the sender's processes by `send`.
    public func sent(_ signal: Int32) -> Bool { state.withLock { $0.signalsSent.contains(signal) } }

    /// Sends `signal` to the sender's process group and to every descendant in `tree` (which
    /// may have left the group); returns how many processes it went to.
    @discardableResult
    func send(_ signal: Int32, to tree: ProcessTree) -> Int {
        state.withLock { _ = $0.signalsSent.insert(signal) }
        kill(-pid, signal)
        for member in tree.members { kill(member.pid, signal) }
        return tree.members.count
    }

    /// Waits for descendants until none is left, adding up the kernel's accounting of each.
    private func reapAll() {
        while true {
            var status: Int32 = 0
            var usage = rusage()
            let reaped = wait4(-1, &status, 0, &usage)
            if reaped < 0 {
                if errno == EINTR { continue }
                state.withLock { $0.allReaped = true }
                return
            }
            guard !apart.contains(reaped) else { continue }
            state.withLock { state in
                state.accounting.userSeconds += Self.seconds(usage.ru_utime)
                state.accounting.systemSeconds += Self.seconds(usage.ru_stime)
                state.accounting.reaped += 1
                guard reaped == pid else { return }
                // WIFEXITED and friends are macros Swift cannot import: the low 7 bits are the
                // killing signal, 0 for a normal exit, whose status is the next 8 bits.
                let signal = status & 0x7f
                state.ending = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
            }
        }
    }

    private static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
}
