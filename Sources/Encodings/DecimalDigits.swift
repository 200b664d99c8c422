/// Decimal integers as ASCII digits, the one writer of them on the per-push paths (a payload's
/// JSON, a line of the mock's traffic recording): no `String` is made on the way, which was a
/// recorded push's largest single cost.
public enum DecimalDigits {
    /// Calls `body` with the digits of `value`, a minus first when it is negative, in one buffer
    /// that lives for the call.
    @inlinable
    public static func withDigits<Result>(
        of value: Int64,
        _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        // Int64.min is a minus and nineteen digits.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            return body(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
