#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open files, which bounds the sockets the mock can accept.
public enum OpenFileLimit {
    /// Raises the soft limit to the hard one (servers need more than the usual 1,024 sockets) and
    /// returns the limit now in force.
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
