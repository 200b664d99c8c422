/// Writes metrics in Prometheus' text exposition format (version 0.0.4), as the mock's admin
/// port and `pushbench run --metrics-port` serve them.
///
/// Both read their figures when a scrape arrives and write them out here, the way Prometheus'
/// own clients write a custom collector's: nothing is kept between scrapes, so the code that
/// counts (a mock's event loop, a run's worker) pays nothing per push for being watched. A
/// registry of counter objects (swift-prometheus') is the other way, and it would have every
/// worker take a lock per push to feed the histograms.
public struct PrometheusText: Sendable {
    /// One sample of a family: its labels (after the writer's `commonLabels`) and its value.
    public struct Sample: Sendable {
        public var labels: [(String, String)]
        public var value: Double

        /// Creates a sample.
        public init(_ labels: [(String, String)], _ value: Double) {
            self.labels = labels
            self.value = value
        }

        /// A count, written without a fraction.
        public init(_ labels: [(String, String)], _ value: Int) {
            self.init(labels, Double(value))
        }

        /// A sample with no labels of its own.
        public init(_ value: Double) {
            self.init([], value)
        }

        /// A count with no labels of its own.
        public init(_ value: Int) {
            self.init([], Double(value))
        }
    }

    /// The text so far.
    public private(set) var text = ""
    /// Labels every sample carries first, such as a run's id and shard.
    private let commonLabels: [(String, String)]

    /// Starts an exposition whose samples all carry `commonLabels`.
    public init(commonLabels: [(String, String)] = []) {
        self.commonLabels = commonLabels
    }

    /// A family of counters: `name` should end `_total`.
    public mutating func counter(_ name: String, help: String, _ samples: [Sample]) {
        family(name, type: "counter", help: help, samples)
    }

    /// A family of gauges.
    public mutating func gauge(_ name: String, help: String, _ samples: [Sample]) {
        family(name, type: "gauge", help: help, samples)
    }

    /// A histogram: `cumulativeCounts[i]` observations at or below `upperBounds[i]`, `count` in
    /// all (the `+Inf` bucket) adding up to `sum`.
    public mutating func histogram(
        _ name: String,
        help: String,
        labels: [(String, String)] = [],
        upperBounds: [Double],
        cumulativeCounts: [UInt64],
        count: UInt64,
        sum: Double
    ) {
        precondition(upperBounds.count == cumulativeCounts.count, "a count for every bound")
        header(name, type: "histogram", help: help)
        for (bound, cumulative) in zip(upperBounds, cumulativeCounts) {
            line(name + "_bucket", labels + [("le", Self.number(bound))], Double(cumulative))
        }
        line(name + "_bucket", labels + [("le", "+Inf")], Double(count))
        line(name + "_sum", labels, sum)
        line(name + "_count", labels, Double(count))
    }

    private mutating func family(_ name: String, type: String, help: String, _ samples: [Sample]) {
        header(name, type: type, help: help)
        for sample in samples { line(name, sample.labels, sample.value) }
    }

    private mutating func header(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(type)\n"
    }

    private mutating func line(_ name: String, _ labels: [(String, String)], _ value: Double) {
        text += name
        let all = commonLabels + labels
        if !all.isEmpty {
            text += "{" + all.map { "\($0.0)=\"\(Self.escapedLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    /// A value as the format reads it: whole numbers without a fraction, others in full
    /// precision, and `+Inf`, `-Inf`, `NaN` spelled as Prometheus spells them.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A label value with backslash, double quote and line feed escaped.
    static func escapedLabel(_ value: String) -> String { escaped(value, quote: true) }

    /// A HELP text with backslash and line feed escaped (a double quote stays as it is).
    static func escapedHelp(_ value: String) -> String { escaped(value, quote: false) }

    private static func escaped(_ value: String, quote: Bool) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"" where quote: result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }
}

extension PrometheusText {
    /// The content type of the format, for the `content-type` header.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
