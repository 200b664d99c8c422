import Basics
import Foundation
import Transport

/// A profile's one clock: the monotonic clock's nanoseconds (`monotonicNanos`), with the wall
/// clock read once, at its origin. Arrivals, lags, the service's calls and the watch's seconds
/// are all read from it, so a step of the wall clock mid-run (NTP) moves no figure; UNIX times
/// (the contract's `at_s` 0, the report's start) are derived from the one wall-clock reading.
public struct ProfileClock: Sendable {
    /// The monotonic clock's nanoseconds and UNIX seconds, read together once.
    public let originNs: Int64
    public let originUnix: Double

    /// A clock whose origin is now.
    public init() {
        originUnix = Date().timeIntervalSince1970
        originNs = Int64(monotonicNanos())
    }

    /// The clock's nanoseconds now.
    public var nowNs: Int64 { Int64(monotonicNanos()) }

    /// The UNIX seconds of the clock's `ns`.
    public func unix(ofNs ns: Int64) -> Double { originUnix + Double(ns - originNs) / 1e9 }

    /// The clock's nanoseconds at UNIX seconds `unix`.
    public func ns(ofUnix unix: Double) -> Int64 { originNs + Int64(((unix - originUnix) * 1e9).rounded()) }
}
