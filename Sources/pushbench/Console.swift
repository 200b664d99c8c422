import LoadEngine
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// Writes to the terminal. Progress and notices go to stderr so stdout carries only results.
/// Writes go straight to the file descriptor: nothing waits in a buffer if the process is killed.
///
/// `--quiet` silences both but for `failure` and `always`: a CI log then holds what failed and
/// where the report is, nothing else.
enum Console {
    /// Set once, by `--quiet`, before any work starts and any thread writes.
    nonisolated(unsafe) private(set) static var isQuiet = false

    /// From now on, print only failures and what `always` prints.
    static func quiet() { isQuiet = true }

    static func out(_ line: String) {
        write(STDOUT_FILENO, line + "\n")
    }

    static func err(_ line: String) {
        write(STDERR_FILENO, line + "\n")
    }

    /// A line printed even under `--quiet`, on stdout: the report's path.
    static func always(_ line: String) {
        writeAll(STDOUT_FILENO, line + "\n")
    }

    /// A failure, printed even under `--quiet`, on stderr.
    static func failure(_ line: String) {
        writeAll(STDERR_FILENO, line + "\n")
    }

    /// A line of the first screen that says something failed: on stdout with the rest of the
    /// screen, or alone on stderr under `--quiet`.
    static func failedResult(_ line: String) {
        isQuiet ? failure(line) : out(line)
    }

    static func write(_ descriptor: Int32, _ text: String) {
        guard !isQuiet else { return }
        writeAll(descriptor, text)
    }

    private static func writeAll(_ descriptor: Int32, _ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { FileWrite.all($0, to: descriptor) }
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

/// The live progress line: rewritten in place on a terminal; otherwise a plain line after the
/// first second (so a log shows early that pushes are flowing), then every 5 s (logs and CI
/// output stay readable).
struct ProgressDisplay {
    private let isTerminal = Console.stderrIsTerminal
    private var lastPlainLine = -4.0

    mutating func show(_ snapshot: ProgressSnapshot) {
        let counts = snapshot.counts
        let percent = snapshot.total.map { String(format: "  %3.0f%%", Double(counts.completed) * 100 / Double($0)) }
        let failures = counts.rejected + counts.errored + counts.timedOut
        let line =
            String(format: "%6.1fs", snapshot.elapsedSeconds) + (percent ?? "")
            + String(
                format: "  sent %d  done %d  %7.0f req/s  p50 %.2f ms  p99 %.2f ms  errors %d",
                counts.sent,
                counts.completed,
                snapshot.recentRatePerSecond,
                Double(snapshot.p50Us) / 1000,
                Double(snapshot.p99Us) / 1000,
                failures
            )
        show(line, at: snapshot.elapsedSeconds)
    }

    /// Shows `line`, a figure of `elapsedSeconds` into the work.
    mutating func show(_ line: String, at elapsedSeconds: Double) {
        if isTerminal {
            Console.write(STDERR_FILENO, "\r\u{1B}[2K" + line)
        } else if elapsedSeconds - lastPlainLine >= 5 {
            lastPlainLine = elapsedSeconds
            Console.err(line)
        }
    }

    func finish() {
        if isTerminal { Console.write(STDERR_FILENO, "\r\u{1B}[2K") }
    }
}
