extension Duration {
    /// Whole nanoseconds, for clock arithmetic on `monotonicNanos()`: a duration is turned into
    /// them once, where a deadline is set up, never per push. Negative durations are 0; ones
    /// longer than 584 years saturate.
    public var inNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow || carry ? .max : total
    }

    /// Whole milliseconds: what libcurl's timeouts and the reports' `_ms` keys take.
    public var inMilliseconds: Int {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return Int(whole + attoseconds / 1_000_000_000_000_000)
    }

    /// Seconds as a floating-point number, for arithmetic with other seconds.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
