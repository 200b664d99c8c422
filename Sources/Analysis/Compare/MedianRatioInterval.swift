import Workload

/// A bootstrap confidence interval of the ratio of two sides' medians (current over baseline):
/// how far the change could plausibly lie from the one the medians show, given how much the runs
/// of each side spread.
///
/// Each of `resamples` rounds draws, with replacement, as many runs as each side has and takes
/// the ratio of the two medians; the interval is the middle `level` of those ratios (the
/// percentile bootstrap). The draws come from a fixed seed, so the same runs always give the same
/// interval: a gate must not flake on its own arithmetic.
public struct MedianRatioInterval: Sendable, Equatable {
    /// The interval's ends.
    public let low: Double
    public let high: Double

    /// `nil` when a side has a single run (nothing to resample) or the baseline's median can be 0.
    public init?(baseline: [Double], current: [Double], level: Double, resamples: Int = 10_000) {
        guard baseline.count > 1 || current.count > 1, level > 0, level < 1, resamples > 0 else { return nil }
        guard baseline.allSatisfy({ $0 > 0 }) else { return nil }
        var random = SplitMix64(seed: 0x5EED_0F_B007)
        var ratios: [Double] = []
        ratios.reserveCapacity(resamples)
        for _ in 0..<resamples {
            let drawnBaseline = baseline.map { _ in baseline[Int.random(in: 0..<baseline.count, using: &random)] }
            let drawnCurrent = current.map { _ in current[Int.random(in: 0..<current.count, using: &random)] }
            ratios.append(Self.median(drawnCurrent) / Self.median(drawnBaseline))
        }
        ratios.sort()
        let tail = (1 - level) / 2
        low = ratios[Int((tail * Double(resamples - 1)).rounded())]
        high = ratios[Int(((1 - tail) * Double(resamples - 1)).rounded())]
    }

    /// The median of `values` (the mean of the middle two for an even count).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
