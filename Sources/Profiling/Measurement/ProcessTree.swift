import Foundation
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
    /// and theirs.
    static func sample(root: pid_t = getpid(), apart: Set<pid_t> = []) -> ProcessTree {
        var children: [pid_t: [Member]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(name), let (parent, member) = read(pid) else { continue }
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
    private static func read(_ pid: pid_t) -> (parent: pid_t, member: Member)? {
        guard let stat = ProcessStat(pid: pid) else { return nil }
        let member = Member(
            pid: pid,
            cpuSeconds: stat.ownCPUSeconds + stat.waitedChildrenCPUSeconds,
            rssBytes: stat.rssBytes,
            peakRSSBytes: peakRSS(pid) ?? stat.rssBytes
        )
        return (stat.parent, member)
    }

    /// `VmHWM` of `/proc/PID/status`, bytes. Not the kernel's `ru_maxrss` of a reaped process:
    /// a forked child holds its parent's memory until it calls exec, and
    /// that figure keeps the parent's peak.
    private static func peakRSS(_ pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }
}
