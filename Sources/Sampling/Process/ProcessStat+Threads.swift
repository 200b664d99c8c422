import Foundation

extension ProcessStat {
    /// User and system seconds of this process's threads whose name begins with `prefix`
    /// (`/proc/self/task/*/comm`): the CPU of one part of PushBench, such as the mock's event
    /// loops, apart from the rest of the process. Threads that ended are no longer counted.
    public static func ownThreadsCPUSeconds(namedLike prefix: String) -> Double {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.reduce(0) { total, task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard name.hasPrefix(prefix), let stat = ProcessStat(statPath: "/proc/self/task/\(task)/stat") else {
                return total
            }
            return total + stat.ownCPUSeconds
        }
    }
}
