#if canImport(Glibc)
import Glibc
#endif

/// Which `malloc` this process runs on, and where jemalloc lives for running on it instead.
///
/// PushBench runs on jemalloc through `LD_PRELOAD` rather than by linking it: the same binary
/// can then be measured on both allocators in one session, which is the comparison a user wants,
/// and nothing in the package build changes.
public enum MemoryAllocator: String, CaseIterable, Sendable {
    case glibc
    case jemalloc

    /// The allocator of this process: jemalloc exports `mallctl`, glibc does not.
    public static var current: MemoryAllocator {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallctl") == nil ? .glibc : .jemalloc
    }

    /// Debian's shared jemalloc (package libjemalloc2, a dependency of libjemalloc-dev), if found.
    public static var jemallocLibrary: String? {
        let candidates = [
            "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
            "/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2",
        ]
        return candidates.first { access($0, R_OK) == 0 }
    }
}
