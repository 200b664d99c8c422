import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Samples call stacks with Debian's `perf` (linux-perf) while a run or a profile works, and
/// folds them once it is done.
///
/// perf samples every CPU (`-a`) at a fixed `frequencyHz` with the `cpu-clock` software event
/// (virtual machines like this one have no hardware counters) and walks frame pointers (`-g`;
/// DWARF unwinding wrote 400 MB and took a minute to read for a 20-second run). Every CPU
/// rather than a process (`-p`), because perf then sees every thread and child from its first
/// instruction: attached to a process it sees only the threads that exist when it attaches.
/// The samples are then kept by process: the sender's and every process it forked (perf
/// records each fork), or this process's own threads of one name.
///
/// perf's own workload is `tail --pid` of this process: perf records every CPU until it is
/// stopped, or until this process is gone, so a `pushbench` killed outright (SIGKILL) leaves no
/// perf sampling behind it.
///
/// Sampling every CPU needs root, CAP_PERFMON or `perf_event_paranoid` at most 0. Where it is
/// not allowed, or perf is not installed, `start` says so in one line and the work goes on.
public final class PerfRecording: @unchecked Sendable {
    /// Samples a second on each CPU: a prime near 1 kHz, so sampling never keeps step with a
    /// timer of the work's own.
    public static let frequencyHz = 997

    /// perf's process ID.
    public let pid: pid_t
    private let folder: String
    private var cpuSecondsAtStop: Double?

    private init(pid: pid_t, folder: String) {
        self.pid = pid
        self.folder = folder
    }

    /// Starts perf and waits (up to 5 s) until it samples.
    ///
    /// - Returns: the recording, or one line saying why there is none (perf missing, not
    ///   allowed to sample, failing).
    public static func start() -> Result<PerfRecording, PerfUnavailable> {
        let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("pushbench-perf-XXXXXX")
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { return .failure(PerfUnavailable("cannot make a temporary folder")) }
        let folder = String(cString: made)
        let data = (folder as NSString).appendingPathComponent("perf.data")
        let errors = (folder as NSString).appendingPathComponent("perf.stderr")
        let pid: pid_t
        do {
            pid = try ChildLaunch.start(
                [
                    "perf", "record", "-a", "-g", "-F", "\(frequencyHz)", "-e", "cpu-clock", "--no-buildid", "-q", "-o",
                    data, "--", "tail", "--pid=\(getpid())", "-f", "/dev/null",
                ],
                environment: ProcessInfo.processInfo.environment,
                outputPath: "/dev/null",
                errorPath: errors
            )
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            let reason = error.errorNumber == ENOENT ? "perf is not installed (Debian's linux-perf)" : "\(error)"
            return .failure(PerfUnavailable(reason))
        }
        let recording = PerfRecording(pid: pid, folder: folder)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if ChildLaunch.hasExited(pid) {
                let refusal = PerfUnavailable(refusal: Self.firstWords(ofFileAt: errors))
                recording.removeFiles()
                return .failure(refusal)
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: data)[.size] as? Int) ?? 0
            if size > 0 { return .success(recording) }
            usleep(10_000)
        }
        recording.requestStop()
        _ = ChildLaunch.waitForExit(pid, seconds: 5)
        recording.removeFiles()
        return .failure(PerfUnavailable("perf did not start sampling within 5 s"))
    }

    /// Starts perf as `start()` does, and tells `notice` in one line that it samples, or why it
    /// cannot and that the work goes on without it.
    public static func start(notice: (String) -> Void) -> Result<PerfRecording, PerfUnavailable> {
        let started = start()
        switch started {
        case .success: notice("sampling call stacks with perf at \(frequencyHz) Hz on every CPU")
        case .failure(let unavailable): notice("--perf: \(unavailable); going on without it")
        }
        return started
    }

    /// Asks perf to stop sampling and write what it has (SIGINT), noting the CPU it used; a
    /// second call does nothing.
    public func requestStop() {
        guard cpuSecondsAtStop == nil else { return }
        cpuSecondsAtStop = ProcessStat(pid: pid)?.ownCPUSeconds ?? 0
        kill(pid, SIGINT)
    }

    /// Stops perf (if not yet asked), waits for it to write, and folds the samples of the
    /// process `following` and of every process it forked, each stack rooted at `root(comm)`
    /// (nil leaves the sample out: a thread not of the sender), `scope` saying whose they are.
    /// The temporary files are removed.
    public func finish(
        following processID: pid_t,
        scope: String,
        root: @escaping (String) -> String? = { $0 }
    ) -> Result<StackProfile, PerfUnavailable> {
        defer { removeFiles() }
        requestStop()
        guard ChildLaunch.waitForExit(pid, seconds: 30) else {
            kill(pid, SIGKILL)
            return .failure(PerfUnavailable("perf did not finish writing its samples within 30 s"))
        }
        let text = (folder as NSString).appendingPathComponent("perf.txt")
        let errors = (folder as NSString).appendingPathComponent("script.stderr")
        let script: pid_t
        do {
            script = try ChildLaunch.start(
                [
                    "perf", "script", "-i", (folder as NSString).appendingPathComponent("perf.data"), "-F",
                    "comm,pid,tid,ip,sym,dso", "--show-task-events", "--no-inline",
                ],
                environment: ProcessInfo.processInfo.environment,
                outputPath: text,
                errorPath: errors
            )
        } catch {
            return .failure(PerfUnavailable("\(error)"))
        }
        guard ChildLaunch.waitForExit(script, seconds: 120) else {
            kill(script, SIGKILL)
            return .failure(PerfUnavailable("perf script did not read the samples within 120 s"))
        }
        do {
            let stacks = try PerfScriptText.fold(
                fileAt: text,
                following: processID,
                root: root,
                demangle: { SwiftDemangler.demangle($0, in: self.folder) }
            )
            guard stacks.totalSamples > 0 else {
                let words = Self.firstWords(ofFileAt: errors)
                return .failure(PerfUnavailable("perf caught no sample of it" + (words.isEmpty ? "" : ": \(words)")))
            }
            return .success(
                StackProfile(
                    stacks: stacks,
                    frequencyHz: Self.frequencyHz,
                    scope: scope,
                    perfCPUSeconds: cpuSecondsAtStop ?? 0
                )
            )
        } catch {
            return .failure(PerfUnavailable("cannot read perf's samples: \(error)"))
        }
    }

    private func removeFiles() { try? FileManager.default.removeItem(atPath: folder) }

    /// The first line of perf's complaint that says something (not `Error:`).
    private static func firstWords(ofFileAt path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && $0 != "Error:" } ?? ""
    }
}

/// Why there are no stacks: one line for the console and the report.
public struct PerfUnavailable: Error, CustomStringConvertible, Equatable {
    /// The reason.
    public let reason: String

    /// A reason.
    public init(_ reason: String) { self.reason = reason }

    /// perf's refusal to start, read: not allowed to sample (with this machine's
    /// `perf_event_paranoid` and what it needs), or perf's own first words.
    init(refusal words: String) {
        if words.contains("perf_event_paranoid") || words.lowercased().contains("access to performance monitoring") {
            let paranoid =
                (try? String(contentsOfFile: "/proc/sys/kernel/perf_event_paranoid", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            reason =
                "perf may not sample every CPU here (perf_event_paranoid is \(paranoid); it needs root, "
                + "CAP_PERFMON or at most 0)"
        } else {
            reason = "perf could not start" + (words.isEmpty ? "" : ": \(words)")
        }
    }

    public var description: String { reason }
}
