/// A push the target answered 200, handed to whoever models what the device does next (the
/// budget model): APNs accepting a push says nothing about whether the device shows it.
public struct AcceptedPush: Sendable {
    /// The push's index in the run (its synthetic device and activity).
    public let tag: Int
    /// When it was meant to be sent, monotonic nanoseconds.
    public let intendedAtNanos: UInt64
    /// When its answer arrived, monotonic nanoseconds; non-decreasing from one call to the next.
    public let answeredAtNanos: UInt64
}
