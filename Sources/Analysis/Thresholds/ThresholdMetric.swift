import Foundation
import Reports

/// A figure of `summary.json` that `--threshold` can hold against a limit: its name, its unit,
/// what it is measured from, and where it is read.
public struct ThresholdMetric: Sendable, Equatable {
    /// The name `--threshold` takes first; `names` holds its other spellings too.
    public let name: String
    let names: [String]
    let unit: Unit
    /// What the figure is, and what it is measured from, as the first screen says it.
    private let about: String
    private let read: @Sendable (RunSummary) -> Double?

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }

    /// The commands whose summaries a threshold judges.
    public enum Kind: String, Sendable {
        case run
        case profile
    }

    /// The kind of value a metric is, and the units its limit is written in.
    public enum Unit: String, Sendable {
        /// Milliseconds; the limit takes `us`, `µs`, `ms`, `s` or `m`.
        case milliseconds = "ms"
        /// Microseconds (CPU a push); the limit takes the same units.
        case microseconds = "us"
        /// A share, percent; the limit is written with `%`.
        case percent
        /// Per second; the limit is written with `/s`.
        case perSecond = "per_s"
        /// A count; the limit is a bare whole number.
        case count

        /// The limit `text` in this unit, or why it cannot be one (naming `expression`).
        func value(of text: String, in expression: String) throws(ThresholdError) -> Double {
            func refuse(_ wanted: String) -> ThresholdError {
                ThresholdError("--threshold '\(expression)': '\(text)' is not \(wanted)")
            }
            switch self {
            case .milliseconds, .microseconds:
                let scales: [(String, Double)] = [("us", 0.001), ("µs", 0.001), ("ms", 1), ("s", 1000), ("m", 60_000)]
                guard let (suffix, scale) = scales.first(where: { text.hasSuffix($0.0) }),
                    let number = Double(text.dropLast(suffix.count)), number.isFinite, number >= 0
                else { throw refuse("a duration: a number with us, ms, s or m, such as 250ms") }
                return self == .milliseconds ? number * scale : number * scale * 1000
            case .percent:
                guard text.hasSuffix("%"), let number = Double(text.dropLast()), (0...100).contains(number) else {
                    throw refuse("a share: a number from 0 to 100 with %, such as 99.9%")
                }
                return number
            case .perSecond:
                guard text.hasSuffix("/s"), let number = Double(text.dropLast(2)), number.isFinite, number >= 0 else {
                    throw refuse("a rate: a number with /s, such as 40000/s")
                }
                return number
            case .count:
                guard let number = Int(text), number >= 0 else { throw refuse("a count: a whole number, such as 0") }
                return Double(number)
            }
        }

        /// `value` in this unit, as a person reads it.
        func text(_ value: Double) -> String {
            switch self {
            case .milliseconds: String(format: "%.3f ms", value)
            case .microseconds: String(format: "%.2f µs", value)
            case .percent: String(format: "%.3f%%", value)
            case .perSecond: String(format: "%.1f/s", value)
            case .count: String(Int(value))
            }
        }
    }

    /// The metrics a command of `kind` can be held to.
    public static func metrics(for kind: Kind) -> [ThresholdMetric] {
        switch kind {
        case .run: runMetrics
        case .profile: profileMetrics
        }
    }

    /// A run's: its latency (from the intended send time in open loop, from submission in
    /// closed loop), its outcomes, its rate and the sender core's CPU.
    static let runMetrics: [ThresholdMetric] =
        [
            ("p50", ["p50"]), ("p90", ["p90"]), ("p95", ["p95"]), ("p99", ["p99"]), ("p99.9", ["p99.9", "p999"]),
            ("max", ["max"]),
        ].map {
            name,
            names in
            ThresholdMetric(
                name: name,
                names: names,
                unit: .milliseconds,
                about: "\(name) latency, from {origin}"
            ) { summary in
                let latency = summary.latencyUs
                let us: UInt64 =
                    switch name {
                    case "p50": latency.p50
                    case "p90": latency.p90
                    case "p95": latency.p95
                    case "p99": latency.p99
                    case "p99.9": latency.p99_9
                    default: latency.max
                    }
                return summary.counts.succeeded + summary.counts.rejected > 0 ? Double(us) / 1000 : nil
            }
        } + outcomeMetrics + [
            ThresholdMetric(
                name: "throughput",
                names: ["throughput"],
                unit: .perSecond,
                about: "requests ended a second over the measured run"
            ) { $0.durationS > 0 ? $0.throughputPerS : nil },
            ThresholdMetric(
                name: "cpu_per_push",
                names: ["cpu_per_push"],
                unit: .microseconds,
                about: "the sender core's CPU a request, all stages"
            ) { $0.counts.sent > 0 ? $0.engineCPUUsPerRequest : nil },
            ThresholdMetric(
                name: "missing",
                names: ["missing"],
                unit: .count,
                about: "pushes sent that no answer came back for (timed out or errored)"
            ) { Double($0.counts.timedOut + $0.counts.errored) },
        ]

    /// A profile's: the sender's lag behind its schedule, its pushes' outcomes, its rate and CPU,
    /// its events no push answered, and, for a service, its fan-out and its devices.
    static let profileMetrics: [ThresholdMetric] =
        [
            ("p50", ["p50", "lag_p50"]), ("p90", ["p90", "lag_p90"]), ("p99", ["lag_p99", "p99"]),
            ("p99.9", ["p99.9", "p999", "lag_p99.9"]), ("max", ["max", "lag_max"]),
        ].map {
            name,
            names in
            ThresholdMetric(
                name: names.first { $0.hasPrefix("lag_") } ?? name,
                names: names,
                unit: .milliseconds,
                about: "\(name) lag of a push behind its event's intended time, measured at the mock"
            ) { summary in
                guard let lag = summary.lag, (summary.events?.received ?? 0) > 0 else { return nil }
                return switch name {
                case "p50": lag.p50Ms
                case "p90": lag.p90Ms
                case "p99": lag.p99Ms
                case "p99.9": lag.p999Ms
                default: lag.maxMs
                }
            }
        } + outcomeMetrics + [
            ThresholdMetric(
                name: "throughput",
                names: ["throughput"],
                unit: .perSecond,
                about: "the sender's pushes a second, as the mock received them"
            ) { $0.sender?.pushesPerS },
            ThresholdMetric(
                name: "cpu_per_push",
                names: ["cpu_per_push"],
                unit: .microseconds,
                about: "the sender's own CPU (user and system) a push"
            ) { summary in summary.sender.flatMap { $0.pushes > 0 ? $0.cpuUsPerPush : nil } },
            ThresholdMetric(
                name: "missing",
                names: ["missing"],
                unit: .count,
                about: "events no accepted push answered"
            ) { summary in (summary.fanout?.missing ?? summary.events?.missing).map(Double.init) },
            ThresholdMetric(
                name: "duplicates",
                names: ["duplicates"],
                unit: .count,
                about: "pushes that repeated an event already accepted"
            ) { summary in summary.events.map { Double($0.duplicates ?? 0) } },
            ThresholdMetric(
                name: "fanout_p99",
                names: ["fanout_p99"],
                unit: .milliseconds,
                about:
                    "time from a call's intended moment until 99% of its pushes arrived, at the 99th percentile of the calls"
            ) { $0.fanout?.all.p99Ms?.p99 },
            ThresholdMetric(
                name: "never_updated",
                names: ["never_updated"],
                unit: .count,
                about: "activities started on a device that no update reached"
            ) { summary in summary.lifecycle.map { Double($0.activities.startedNeverUpdated) } },
        ]

    /// Shares and counts of the requests' outcomes, the same for runs and profiles.
    static let outcomeMetrics: [ThresholdMetric] = [
        ThresholdMetric(
            name: "success_rate",
            names: ["success_rate"],
            unit: .percent,
            about: "requests answered 200, of those sent"
        ) { $0.counts.sent > 0 ? Double($0.counts.succeeded) * 100 / Double($0.counts.sent) : nil },
        ThresholdMetric(
            name: "error_rate",
            names: ["error_rate"],
            unit: .percent,
            about: "requests rejected, errored or timed out, of those sent"
        ) { summary in
            let counts = summary.counts
            return counts.sent > 0
                ? Double(counts.rejected + counts.errored + counts.timedOut) * 100 / Double(counts.sent) : nil
        },
        ThresholdMetric(name: "rejected", names: ["rejected"], unit: .count, about: "requests APNs refused") {
            Double($0.counts.rejected)
        },
        ThresholdMetric(name: "timed_out", names: ["timed_out"], unit: .count, about: "requests never answered in time")
        {
            Double($0.counts.timedOut)
        },
    ]

    /// What `summary` measured of this metric, in its unit; `nil` when it has no such figure.
    func value(in summary: RunSummary) -> Double? {
        read(summary)
    }

    /// What the figure is in `summary`: a run's latency is measured from the intended send time
    /// in open loop (no coordinated omission) and from submission in closed loop.
    func about(in summary: RunSummary) -> String {
        about.replacingOccurrences(
            of: "{origin}",
            with: summary.mode == "open_loop" ? "the intended send time (open loop)" : "submission (closed loop)"
        )
    }
}
