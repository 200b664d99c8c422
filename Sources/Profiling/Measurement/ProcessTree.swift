import Sampling

#if canImport(Glibc)
import Glibc
#endif

/// The sender's processes as `/proc` shows them at one moment: every descendant of this
/// process (a child subreaper, so orphans stay in the tree), with the CPU time and memory each
/// holds.
///
/// Sampled a few times a second for the series and the peak memory; the exact CPU total comes
/// from the kernel's accounting of reaped processes (`SenderProcess`), which a sample cannot
/// miss between two looks.
struct ProcessTree {
    /// One process of the tree.
    struct Member {
        let pid: pid_t
        /// User and system time of the process and of the children it has waited for, seconds.
        let cpuSeconds: Double
        /// Resident memory, bytes.
        let rssBytes: Int
        /// The most resident memory it has held since it last called exec (`VmHWM`), bytes.
        let peakRSSBytes: Int
    }

    /// The processes.
    let members: [Member]

    /// CPU seconds held by the live processes (their own and their reaped children's).
    var cpuSeconds: Double { members.reduce(0) { $0 + $1.cpuSeconds } }
    /// Resident memory of all of them together, bytes.
    var rssBytes: Int { members.reduce(0) { $0 + $1.rssBytes } }
    /// The largest peak of any one of them, bytes.
    var largestPeakRSSBytes: Int { members.map(\.peakRSSBytes).max() ?? 0 }

    /// The descendants of process `root` (by default this one) now, but for those in `apart`
    /// and theirs: found through each thread's `children` file, so that only the tree's own
    /// `/proc` files are read, or by reading every process's parent where the kernel keeps no
    /// such file.
    static func sample(root: pid_t = getpid(), apart: Set<pid_t> = []) -> ProcessTree {
        var reader = ProcFile()
        guard let top = children(of: root, reader: &reader) else { return scan(root: root, apart: apart) }
        var members: [Member] = []
        var queue = top.filter { !apart.contains($0) }
        while let pid = queue.popLast() {
            guard let member = read(pid, reader: &reader)?.member else { continue }
            members.append(member)
            queue += (children(of: pid, reader: &reader) ?? []).filter { !apart.contains($0) }
        }
        return ProcessTree(members: members)
    }

    /// The children of process `pid`, from its threads' `children` files (proc(5)); nil if the
    /// kernel has none.
    private static func children(of pid: pid_t, reader: inout ProcFile) -> [pid_t]? {
        let tasks = ProcFile.numericEntries(of: "/proc/\(pid)/task")
        var children: [pid_t] = []
        var found = false
        for task in tasks where reader.read("/proc/\(pid)/task/\(task)/children") {
            found = true
            children += reader.integers.map { pid_t(truncatingIfNeeded: $0) }
        }
        // A process gone has no tasks and no children; tasks without the file: an older kernel.
        return found || tasks.isEmpty ? children : nil
    }

    /// The tree by every process's parent, for a kernel without `children` files.
    private static func scan(root: pid_t, apart: Set<pid_t>) -> ProcessTree {
        var reader = ProcFile()
        var children: [pid_t: [Member]] = [:]
        for pid in ProcFile.numericEntries(of: "/proc") {
            guard let (parent, member) = read(pid, reader: &reader) else { continue }
            children[parent, default: []].append(member)
        }
        var members: [Member] = []
        var queue = (children[root] ?? []).filter { !apart.contains($0.pid) }
        while let next = queue.popLast() {
            members.append(next)
            queue += (children[next.pid] ?? []).filter { !apart.contains($0.pid) }
        }
        return ProcessTree(members: members)
    }

    /// The parent and figures of process `pid`; `nil` if it is gone.
    private static func read(_ pid: pid_t, reader: inout ProcFile) -> (parent: pid_t, member: Member)? {
        guard let stat = ProcessStat(pid: pid, reader: &reader) else { return nil }
        // `VmHWM` of `/proc/PID/status`, kB. Not the kernel's `ru_maxrss` of a reaped process: a
        // forked child holds its parent's memory until it calls exec, and that figure keeps the
        // parent's peak.
        let peak = reader.read("/proc/\(pid)/status") ? reader.integer(after: "VmHWM:").map { $0 * 1024 } : nil
        let member = Member(
            pid: pid,
            cpuSeconds: stat.ownCPUSeconds + stat.waitedChildrenCPUSeconds,
            rssBytes: stat.rssBytes,
            peakRSSBytes: peak ?? stat.rssBytes
        )
        return (stat.parent, member)
    }
}
