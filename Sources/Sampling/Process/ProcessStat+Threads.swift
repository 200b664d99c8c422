extension ProcessStat {
    /// User and system seconds of this process's threads whose name begins with `prefix`
    /// (`/proc/self/task/*/comm`): the CPU of one part of PushBench, such as the mock's event
    /// loops, apart from the rest of the process. Threads that ended are no longer counted.
    public static func ownThreadsCPUSeconds(namedLike prefix: String) -> Double {
        var reader = ProcFile()
        return ProcFile.numericEntries(of: "/proc/self/task").reduce(0) { total, task in
            guard reader.read("/proc/self/task/\(task)/comm"), reader.starts(with: prefix),
                let stat = ProcessStat(statPath: "/proc/self/task/\(task)/stat", reader: &reader)
            else { return total }
            return total + stat.ownCPUSeconds
        }
    }
}
