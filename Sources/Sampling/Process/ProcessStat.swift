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
    public init?(pid: pid_t) {
        var reader = ProcFile()
        self.init(pid: pid, reader: &reader)
    }

    /// Process `pid` now, read with `reader` (whose buffer a watcher reuses); nil if it is gone.
    public init?(pid: pid_t, reader: inout ProcFile) { self.init(statPath: "/proc/\(pid)/stat", reader: &reader) }

    /// The process or thread whose `stat` file is at `statPath`; nil if it is gone.
    init?(statPath: String, reader: inout ProcFile) {
        guard reader.read(statPath), var index = reader.afterLastParenthesis else { return nil }
        // After the command's closing parenthesis: state, ppid, ..., utime (the 12th field
        // after it), stime, cutime, cstime, ..., rss (the 22nd).
        var fields: [Int] = []
        fields.reserveCapacity(22)
        while fields.count < 22, let field = reader.integer(from: &index) { fields.append(field) }
        guard fields.count == 22 else { return nil }
        parent = pid_t(truncatingIfNeeded: fields[1])
        ownCPUSeconds = Double(fields[11] + fields[12]) / Self.ticksPerSecond
        waitedChildrenCPUSeconds = Double(fields[13] + fields[14]) / Self.ticksPerSecond
        rssBytes = fields[21] * Self.pageBytes
    }
}
