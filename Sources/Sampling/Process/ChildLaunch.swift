import CProcess
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts a program as a child in a process group of its own, with `fork` and `exec` in C
/// (`pb_spawn`): nothing of Foundation's `Process`, whose own waiting would race a subreaper's
/// (`pushbench profile` reaps every child itself), and not `posix_spawn`, which cannot ask the
/// kernel to kill the child when PushBench dies.
public enum ChildLaunch {
    /// The program could not be started.
    public struct Failure: Error, CustomStringConvertible {
        /// The program.
        public let program: String
        /// The system's error number (ENOENT: not found).
        public let errorNumber: Int32
        /// The step of a sealed network's setup that failed (`pb_seal_step`), or `PB_SEAL_EXEC`.
        public var sealStep = PB_SEAL_EXEC

        public var description: String { "cannot start \(program): \(String(cString: strerror(errorNumber)))" }
    }

    /// Starts `command` (its first element found on `PATH`) with `environment`, its standard
    /// input read from `inputPath` (empty by default) and its output appended to `outputPath`
    /// and `errorPath`.
    ///
    /// It inherits no descriptor but those three: a pipe of this process's held open by a child
    /// would keep whoever reads it waiting after this process has gone. Its own process group
    /// keeps a terminal's Ctrl-C from reaching it behind this process's back; signals this
    /// process ignores (SIGINT and SIGTERM while a trap is set, SIGPIPE) get their default action
    /// back, and none is blocked.
    ///
    /// With `diesWithThisProcess`, the child never outlives this process, not even its crash or
    /// a SIGKILL: the kernel kills it when the calling thread ends (`PR_SET_PDEATHSIG`, so call
    /// this from a thread that lives as long as the child should, such as the main one); give
    /// its group to `watch(group:)` for its own children to go too.
    ///
    /// With `seal`, the child's network is sealed before its exec (`pb_seal_network`).
    /// - Throws: `Failure` with the system's reason.
    public static func start(
        _ command: [String],
        environment: [String: String],
        inputPath: String = "/dev/null",
        outputPath: String,
        errorPath: String,
        diesWithThisProcess: Bool = false,
        seal: UnsafePointer<pb_seal>? = nil
    ) throws(Failure) -> pid_t {
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var failure: Int32 = 0
        var step: Int32 = 0
        let pid = pb_spawn(
            command[0],
            argv,
            envp,
            diesWithThisProcess ? 1 : 0,
            inputPath,
            outputPath,
            errorPath,
            seal,
            &failure,
            &step
        )
        guard pid > 0 else {
            throw Failure(program: command[0], errorNumber: failure, sealStep: pb_seal_step(UInt32(step)))
        }
        return pid
    }

    /// Starts a process that kills process group `group` the moment this process is gone,
    /// however it went, and exits by itself once the group is empty: a child's own children
    /// die with PushBench too. Its pid, for a reaper to leave out of its books.
    public static func watch(group: pid_t) throws(Failure) -> pid_t {
        let pid = pb_spawn_group_watchdog(group)
        guard pid > 0 else { throw Failure(program: "the process group's watchdog", errorNumber: errno) }
        return pid
    }
}

extension ChildLaunch {
    /// Whether child `pid` has exited: reaped here, or already reaped by a subreaper's thread
    /// (`waitpid` then has no such child).
    public static func hasExited(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        let waited = waitpid(pid, &status, WNOHANG)
        return waited == pid || (waited < 0 && errno == ECHILD)
    }

    /// Waits up to `seconds` for child `pid` to exit; whether it did.
    public static func waitForExit(_ pid: pid_t, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !hasExited(pid) {
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }
}
