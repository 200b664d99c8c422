import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One process as `/proc/PID/stat` shows it now (proc(5)): its parent, its CPU time and its
/// resident memory. The one reader of that file, for `profile`'s samples of the sender's
/// processes and for perf's own cost.
public struct ProcessStat: Sendable {
    /// The parent's process ID.
    public let parent: pid_t
    /// User and system seconds of the process itself.
    public let ownCPUSeconds: Double
    /// User and system seconds of the children it has waited for.
    public let waitedChildrenCPUSeconds: Double
    /// Resident memory, bytes.
    public let rssBytes: Int

    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    private static let pageBytes = sysconf(Int32(_SC_PAGESIZE))

    /// Process `pid` now; nil if it is gone.
    public init?(pid: pid_t) { self.init(statPath: "/proc/\(pid)/stat") }

    /// The process or thread whose `stat` file is at `statPath`; nil if it is gone.
    init?(statPath: String) {
        guard let text = try? String(contentsOfFile: statPath, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command's closing parenthesis: state, ppid, ..., utime (the 12th field
        // after it), stime, cutime, cstime, ..., rss (the 22nd).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 21, let parent = pid_t(fields[1]) else { return nil }
        func seconds(_ range: ClosedRange<Int>) -> Double {
            Double(range.reduce(0) { $0 + (Int(fields[$1]) ?? 0) }) / Self.ticksPerSecond
        }
        self.parent = parent
        ownCPUSeconds = seconds(11...12)
        waitedChildrenCPUSeconds = seconds(13...14)
        rssBytes = (Int(fields[21]) ?? 0) * Self.pageBytes
    }
}
