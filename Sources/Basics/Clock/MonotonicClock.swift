#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock every deadline and latency of a run is read from, in nanoseconds.
///
/// One clock for the engine and both transports: a request's deadline is its intended send time
/// (the engine's reading) plus the timeout, checked against the transport's readings.
public func monotonicNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
