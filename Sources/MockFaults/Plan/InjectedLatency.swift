import Foundation
import Workload

/// How long the mock waits before answering a push, drawn per push: the shape of a real
/// server's (and network's) latency, so a client's percentiles can be checked against it.
public enum InjectedLatency: Sendable, Equatable, CustomStringConvertible {
    /// Answer at once.
    case none
    /// Always this many microseconds.
    case fixed(micros: Double)
    /// Evenly between two bounds, microseconds.
    case uniform(lowMicros: Double, highMicros: Double)
    /// Normal with this mean and standard deviation, microseconds (negative draws answer at once).
    case normal(meanMicros: Double, deviationMicros: Double)
    /// Log-normal with this median (microseconds) and σ of the logarithm: the long right tail
    /// real services have.
    case lognormal(medianMicros: Double, sigma: Double)
    /// A measured distribution: percentiles ascending to 100, each with its latency; draws fall
    /// on straight lines between them (and at the first value below the first percentile), so a
    /// table taken from a real service's dashboard replays its shape, tail included.
    case empirical([Percentile])

    /// One point of an empirical distribution.
    public struct Percentile: Sendable, Equatable {
        /// The percentile, 0 to 100.
        public var percentile: Double
        /// The latency at it, microseconds.
        public var micros: Double

        /// Creates a point.
        public init(_ percentile: Double, micros: Double) {
            self.percentile = percentile
            self.micros = micros
        }
    }

    /// Parses `fixed:20ms`, `uniform:10ms-30ms`, `normal:20ms,5ms`, `lognormal:20ms,0.5`,
    /// `empirical:50=8ms,99=40ms,100=120ms` or `none`; durations take `us`, `ms` or `s`.
    /// - Throws: `MockFaultError` saying what is wrong and what is expected.
    public init(parsing text: String) throws {
        let expected =
            "expected none, fixed:20ms, uniform:10ms-30ms, normal:20ms,5ms, lognormal:20ms,0.5 or empirical:50=8ms,99=40ms,100=120ms"
        if text == "none" {
            self = .none
            return
        }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw MockFaultError("latency '\(text)': \(expected)") }
        let arguments = parts[1]
        switch parts[0] {
        case "fixed":
            self = .fixed(micros: try Self.micros(arguments))
        case "uniform":
            let bounds = arguments.split(separator: "-").map(String.init)
            guard bounds.count == 2 else { throw MockFaultError("latency '\(text)': \(expected)") }
            let (low, high) = (try Self.micros(bounds[0]), try Self.micros(bounds[1]))
            guard low <= high else { throw MockFaultError("latency '\(text)': the low bound exceeds the high one") }
            self = .uniform(lowMicros: low, highMicros: high)
        case "normal":
            let values = arguments.split(separator: ",").map(String.init)
            guard values.count == 2 else { throw MockFaultError("latency '\(text)': \(expected)") }
            self = .normal(meanMicros: try Self.micros(values[0]), deviationMicros: try Self.micros(values[1]))
        case "lognormal":
            let values = arguments.split(separator: ",").map(String.init)
            guard values.count == 2, let sigma = Double(values[1]), sigma >= 0, sigma.isFinite else {
                throw MockFaultError("latency '\(text)': \(expected)")
            }
            self = .lognormal(medianMicros: try Self.micros(values[0]), sigma: sigma)
        case "empirical":
            self = .empirical(try Self.percentiles(arguments, in: text))
        default:
            throw MockFaultError("latency '\(text)': \(expected)")
        }
    }

    /// The points of `empirical:P=DURATION,...`: percentiles rising to 100, latencies not falling.
    private static func percentiles(_ arguments: String, in text: String) throws -> [Percentile] {
        let points = try arguments.split(separator: ",").map { point in
            let parts = point.split(separator: "=").map(String.init)
            guard parts.count == 2, let percentile = Double(parts[0]), (0...100).contains(percentile) else {
                throw MockFaultError("latency '\(text)': each point is PERCENTILE=DURATION, such as 99=40ms")
            }
            return Percentile(percentile, micros: try micros(parts[1]))
        }
        guard points.last?.percentile == 100,
            zip(points, points.dropFirst()).allSatisfy({ $0.percentile < $1.percentile && $0.micros <= $1.micros })
        else {
            throw MockFaultError(
                "latency '\(text)': percentiles must rise to 100, with latencies that do not fall"
            )
        }
        return points
    }

    /// A duration such as `250us`, `20ms` or `1.5s`, in microseconds.
    /// - Throws: `MockFaultError` for anything else.
    static func micros(_ text: String) throws -> Double {
        for (suffix, scale) in [("us", 1.0), ("ms", 1000.0), ("s", 1_000_000.0)] where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)), value >= 0, value.isFinite { return value * scale }
        }
        throw MockFaultError("'\(text)' is not a duration such as 250us, 20ms or 1.5s")
    }

    /// One draw, microseconds, from `random`.
    package func sample(_ random: inout SplitMix64) -> Double {
        switch self {
        case .none: 0
        case .fixed(let micros): micros
        case .uniform(let low, let high): low + (high - low) * random.nextUnit()
        case .normal(let mean, let deviation): max(0, mean + deviation * Self.standardNormal(&random))
        case .lognormal(let median, let sigma): median * exp(sigma * Self.standardNormal(&random))
        case .empirical(let points): Self.interpolate(points, at: 100 * random.nextUnit())
        }
    }

    /// The latency below which a share `probability` (0 to 1) of draws fall, microseconds: what
    /// the mock needs to say when the last of many subscribers had a broadcast without drawing
    /// once per subscriber.
    package func quantile(_ probability: Double) -> Double {
        let p = min(max(probability, 0), 1)
        switch self {
        case .none: return 0
        case .fixed(let micros): return micros
        case .uniform(let low, let high): return low + (high - low) * p
        case .normal(let mean, let deviation): return max(0, mean + deviation * Self.standardNormalQuantile(p))
        case .lognormal(let median, let sigma): return median * exp(sigma * Self.standardNormalQuantile(p))
        case .empirical(let points): return Self.interpolate(points, at: 100 * p)
        }
    }

    /// Φ⁻¹(p) by Acklam's rational approximation (relative error below 1.2e-9), clamped to
    /// ±8.3σ at the ends.
    private static func standardNormalQuantile(_ p: Double) -> Double {
        guard p > 1e-16 else { return -8.3 }
        guard p < 1 - 1e-16 else { return 8.3 }
        let a = [
            -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690, -30.66479806614716,
            2.506628277459239,
        ]
        let b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
        let c = [
            -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
            2.938163982698783,
        ]
        let d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
        func tail(_ q: Double) -> Double {
            (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        if p < 0.02425 { return tail((-2 * log(p)).squareRoot()) }
        if p > 1 - 0.02425 { return -tail((-2 * log(1 - p)).squareRoot()) }
        let q = p - 0.5
        let r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }

    /// The latency at `percentile` on the straight lines between `points`.
    private static func interpolate(_ points: [Percentile], at percentile: Double) -> Double {
        guard let upper = points.firstIndex(where: { $0.percentile >= percentile }), upper > 0 else {
            return points[0].micros
        }
        let (low, high) = (points[upper - 1], points[upper])
        let share = (percentile - low.percentile) / (high.percentile - low.percentile)
        return low.micros + share * (high.micros - low.micros)
    }

    /// Box–Muller: one standard normal draw from two uniform ones.
    private static func standardNormal(_ random: inout SplitMix64) -> Double {
        let u1 = max(random.nextUnit(), .leastNonzeroMagnitude)
        let u2 = random.nextUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    public var description: String {
        func ms(_ micros: Double) -> String { "\((micros / 1000).formatted())ms" }
        switch self {
        case .none: return "none"
        case .fixed(let micros): return "fixed:\(ms(micros))"
        case .uniform(let low, let high): return "uniform:\(ms(low))-\(ms(high))"
        case .normal(let mean, let deviation): return "normal:\(ms(mean)),\(ms(deviation))"
        case .lognormal(let median, let sigma): return "lognormal:\(ms(median)),\(sigma)"
        case .empirical(let points):
            return "empirical:" + points.map { "\($0.percentile.formatted())=\(ms($0.micros))" }.joined(separator: ",")
        }
    }
}

/// A fault specification the mock cannot use.
public struct MockFaultError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
