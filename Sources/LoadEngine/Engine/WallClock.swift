/// Where a run reads the time of day: provider tokens' `iat` and their refresh, payload
/// timestamps, and the run's start.
///
/// The system clock in every real run; a test hands in a faster one to see a 50-minute token
/// refresh happen in a second.
public struct WallClock: Sendable {
    /// UNIX seconds now.
    public let now: @Sendable () -> Double

    /// A clock that reads `now`.
    public init(_ now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The system's real-time clock.
    public static let system = WallClock { unixNow() }
}
