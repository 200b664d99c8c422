#if canImport(Glibc)
import Glibc
#endif

extension LoadTest {
    /// The longest sleep while waiting for a start, so a stop request is seen promptly.
    static let startWaitStepNanos: Double = 20_000_000

    /// Sleeps until `instant` (UNIX seconds) on `clock`, or until `stop` is set: a shard's
    /// schedule starts at the instant every shard was given, not when its process happened to.
    /// The last sleep ends at the instant, so shards on synchronised clocks start within a
    /// millisecond or two of one another.
    static func wait(until instant: Double, on clock: WallClock, stop: StopFlag) {
        while !stop.isSet {
            let left = (instant - clock.now()) * 1e9
            guard left > 0 else { return }
            let nanos = Int(min(left, startWaitStepNanos))
            var request = timespec(tv_sec: 0, tv_nsec: nanos)
            nanosleep(&request, nil)
        }
    }
}
