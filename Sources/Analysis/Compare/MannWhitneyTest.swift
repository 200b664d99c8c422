import Foundation

/// The Mann-Whitney U test (Wilcoxon rank-sum): whether one side's runs tend to lie above or
/// below the other's, from their ranks alone, so one wild run moves it no more than any other.
///
/// A timing gate uses it to fail only on a difference that noise is unlikely to explain, as
/// google/benchmark's `compare.py` does. Without ties and with up to 30 runs a side the p-value is
/// exact (the share of all ways to split the pooled runs into the two sides that are at least as
/// uneven); with ties or more runs it is the normal approximation with tie and continuity
/// corrections, as SciPy's `mannwhitneyu(method="asymptotic")` computes it.
public struct MannWhitneyTest: Sendable, Equatable {
    /// Pairs in which the current side's value is the larger, ties counting a half.
    public let u: Double
    /// The two-sided p-value: how likely a split at least this uneven is when both sides come
    /// from one distribution.
    public let pValue: Double

    /// Tests `current` against `baseline`; both need at least one value.
    public init(baseline: [Double], current: [Double]) {
        precondition(!baseline.isEmpty && !current.isEmpty, "each side needs a value")
        var u = 0.0
        for value in current {
            for base in baseline { u += value > base ? 1 : value == base ? 0.5 : 0 }
        }
        self.u = u
        let pooled = baseline + current
        let tied = Set(pooled).count < pooled.count
        if !tied, baseline.count <= Self.exactLimit, current.count <= Self.exactLimit {
            pValue = Self.exactPValue(u: u, n: baseline.count, m: current.count)
        } else {
            pValue = Self.normalPValue(u: u, n: baseline.count, m: current.count, pooled: pooled)
        }
    }

    /// The smallest p-value `n` and `m` runs can give (the two most uneven of all splits): when it
    /// is not below a gate's significance level, no difference, however large, can be significant.
    public static func smallestPValue(n: Int, m: Int) -> Double {
        min(1, 2 / splits(n, m))
    }

    /// The fewest runs a side (the same on both) that can give a p-value below `alpha`.
    public static func runsNeeded(forAlpha alpha: Double) -> Int {
        var runs = 1
        while smallestPValue(n: runs, m: runs) >= alpha, runs < exactLimit { runs += 1 }
        return runs
    }

    /// Runs a side up to which the exact distribution is counted.
    private static let exactLimit = 30

    /// The number of ways to choose which `n` of `n + m` pooled values are the baseline's.
    private static func splits(_ n: Int, _ m: Int) -> Double {
        (0..<min(n, m)).reduce(1.0) { product, k in product * Double(n + m - k) / Double(k + 1) }
    }

    /// Counts, for every U, the splits that give it (U for `m` values against `n`, built up one
    /// value at a time), and sums the tail beyond `u` on its side, doubled.
    private static func exactPValue(u: Double, n: Int, m: Int) -> Double {
        // ways[j][k]: the splits of j current values among the i baseline values added so far
        // that give U = k. The largest of i + j values is either a baseline one (it beats none of
        // the current ones: the count for i - 1, already in place) or a current one (it beats all
        // i baseline values: the count for j - 1, already updated for i).
        var ways = (0...m).map { j in [Double](repeating: 0, count: n * j + 1) }
        for j in 0...m { ways[j][0] = 1 }
        for i in 1...n {
            for j in 1...m {
                for k in i...(i * j) { ways[j][k] += ways[j - 1][k - i] }
            }
        }
        let distribution = ways[m]
        let observed = Int(u.rounded())
        let below = distribution[0...observed].reduce(0, +)
        let above = distribution[observed...].reduce(0, +)
        return min(1, 2 * min(below, above) / splits(n, m))
    }

    /// The normal approximation: U's mean and its variance corrected for ties, with a continuity
    /// correction of a half.
    private static func normalPValue(u: Double, n: Int, m: Int, pooled: [Double]) -> Double {
        let total = Double(n + m)
        var tieTerm = 0.0
        for (_, count) in Dictionary(grouping: pooled, by: { $0 }) where count.count > 1 {
            let t = Double(count.count)
            tieTerm += t * t * t - t
        }
        let mean = Double(n * m) / 2
        let variance = Double(n * m) / 12 * ((total + 1) - tieTerm / (total * (total - 1)))
        guard variance > 0 else { return 1 }
        let z = max(0, abs(u - mean) - 0.5) / variance.squareRoot()
        return min(1, erfc(z / 2.0.squareRoot()))
    }
}
