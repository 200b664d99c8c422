import Histogram

/// One non-empty bucket of a latency histogram: the bucket's highest value and how many values
/// fell in it.
///
/// A histogram as its buckets is exact and small (hundreds of pairs, not the tens of thousands of
/// counters behind them), and recording each pair into a histogram of the same precision rebuilds
/// it: that is how a summary keeps a run's histograms and how shards' histograms are added.
public struct LatencyBucket: Sendable, Equatable {
    /// The highest value that falls in the bucket, microseconds.
    public var valueUs: UInt64
    /// Values recorded in it.
    public var count: UInt64

    /// Creates a bucket.
    public init(valueUs: UInt64, count: UInt64) {
        self.valueUs = valueUs
        self.count = count
    }
}

extension Histogram<UInt64> {
    /// The non-empty buckets, lowest first.
    public var buckets: [LatencyBucket] {
        recordedValues().map { LatencyBucket(valueUs: $0.value, count: UInt64($0.count)) }
    }

    /// A histogram from 1 µs that grows as needed (a stalled server can produce minutes), with
    /// `buckets` recorded into it; the buckets must come from a histogram with the same digits.
    public static func latency(digits: SignificantDigits, buckets: [LatencyBucket] = []) -> Histogram<UInt64> {
        var histogram = Histogram<UInt64>(
            lowestDiscernibleValue: 1,
            highestTrackableValue: 60_000_000,
            numberOfSignificantValueDigits: digits
        )
        histogram.autoResize = true
        for bucket in buckets { _ = histogram.record(bucket.valueUs, count: bucket.count) }
        return histogram
    }
}
