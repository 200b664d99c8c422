import CProcess
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts a program as a child in a process group of its own, with `posix_spawn`: nothing of
/// Foundation's `Process`, whose own waiting would race a subreaper's (`pushbench profile`
/// reaps every child itself).
public enum ChildLaunch {
    /// The program could not be started.
    public struct Failure: Error, CustomStringConvertible {
        /// The program.
        public let program: String
        /// The system's error number (ENOENT: not found).
        public let errorNumber: Int32

        public var description: String { "cannot start \(program): \(String(cString: strerror(errorNumber)))" }
    }

    /// Starts `command` (its first element found on `PATH`) with `environment`, its standard
    /// input read from `inputPath` (empty by default) and its output appended to `outputPath`
    /// and `errorPath`.
    ///
    /// It inherits no descriptor but those three: a pipe of this process's held open by a child
    /// would keep whoever reads it waiting after this process has gone. Its own process group
    /// keeps a terminal's Ctrl-C from reaching it behind this process's back; signals this process ignores (SIGINT and SIGTERM while a trap is set, SIGPIPE) get
    /// their default action back, and none is blocked.
    /// - Throws: `Failure` with the system's reason.
    public static func start(
        _ command: [String],
        environment: [String: String],
        inputPath: String = "/dev/null",
        outputPath: String,
        errorPath: String
    ) throws(Failure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        pb_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP, SIGQUIT] { sigaddset(&defaults, number) }
        var noneBlocked = sigset_t()
        sigemptyset(&noneBlocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &noneBlocked)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        )
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let failure = posix_spawnp(&pid, command[0], &actions, &attributes, argv, envp)
        guard failure == 0 else { throw Failure(program: command[0], errorNumber: failure) }
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
