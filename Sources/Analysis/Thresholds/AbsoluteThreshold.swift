import Foundation
import Reports

/// An absolute threshold on one figure of a run or a profile, as k6 users write them:
/// `p99<250ms`, `success_rate>=99.9%`, `throughput>=40000/s`, `missing==0`. A CI job gates a
/// build on it without a baseline (`run --threshold`, `profile --threshold`).
public struct AbsoluteThreshold: Sendable, Equatable {
    /// The threshold as it was given.
    public let expression: String
    public let metric: ThresholdMetric
    public let comparison: Comparison
    /// The limit in the metric's unit (milliseconds for times).
    public let limit: Double

    /// How a figure is held against its limit.
    public enum Comparison: String, Sendable, CaseIterable {
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case greater = ">"

        func holds(_ value: Double, _ limit: Double) -> Bool {
            switch self {
            case .less: value < limit
            case .lessOrEqual: value <= limit
            case .greater: value > limit
            case .greaterOrEqual: value >= limit
            case .equal: value == limit
            case .notEqual: value != limit
            }
        }
    }

    /// Parses `METRIC OP VALUE[UNIT]` for a command of `kind`, whose metrics are
    /// `ThresholdMetric.metrics(for:)`.
    /// - Throws: `ThresholdError` naming the metrics, the operators or the units it takes.
    public init(parsing text: String, for kind: ThresholdMetric.Kind) throws(ThresholdError) {
        let spaceless = text.filter { !$0.isWhitespace }
        guard
            let comparison = Comparison.allCases.compactMap({ comparison in
                spaceless.range(of: comparison.rawValue).map { (comparison, $0) }
            }).min(by: { $0.1.lowerBound < $1.1.lowerBound })
        else {
            throw ThresholdError(
                "--threshold '\(text)': no comparison; write METRIC OP VALUE with OP one of "
                    + "\(Comparison.allCases.map(\.rawValue).joined(separator: " ")), such as 'p99<250ms'"
            )
        }
        let name = String(spaceless[..<comparison.1.lowerBound])
        let value = String(spaceless[comparison.1.upperBound...])
        let metrics = ThresholdMetric.metrics(for: kind)
        guard let metric = metrics.first(where: { $0.names.contains(name) }) else {
            throw ThresholdError(
                "--threshold '\(text)': no metric '\(name)' for \(kind.rawValue); the metrics: "
                    + metrics.map(\.name).joined(separator: ", ")
            )
        }
        self.expression = text
        self.metric = metric
        self.comparison = comparison.0
        self.limit = try metric.unit.value(of: value, in: text)
    }

    /// The verdict on `summary`: its figure against the limit. A figure the run does not have
    /// fails, and says so, for a gate must not pass on nothing.
    public func verdict(on summary: RunSummary) -> RunSummary.ThresholdVerdict {
        let measured = metric.value(in: summary)
        return RunSummary.ThresholdVerdict(
            expression: expression,
            metric: metric.name,
            measured: measured,
            limit: limit,
            unit: metric.unit.rawValue,
            passed: measured.map { comparison.holds($0, limit) } ?? false,
            about: metric.about(in: summary)
        )
    }
}

/// A threshold that cannot be parsed: the message names what was wrong and what is taken.
public struct ThresholdError: Error, CustomStringConvertible, Equatable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension RunSummary.ThresholdVerdict {
    /// One line for the first screen: `PASS p99<250ms  (measured 3.1 ms: ...)`.
    public var line: String {
        let figure =
            measured.map { ThresholdMetric.Unit(rawValue: unit)?.text($0) ?? "\($0)" } ?? "no such figure in this run"
        return (passed ? "PASS " : "FAIL ") + "\(expression)  (measured \(figure); \(about))"
    }

    /// The verdicts as JUnit XML, one test case each, for a CI job's test report.
    public static func junitXML(_ verdicts: [Self], suite: String) -> String {
        let failures = verdicts.count { !$0.passed }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuite name=\"\(escaped(suite))\" tests=\"\(verdicts.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        for verdict in verdicts {
            xml += "  <testcase classname=\"\(escaped(suite))\" name=\"\(escaped(verdict.expression))\""
            guard !verdict.passed else {
                xml += "/>\n"
                continue
            }
            xml += ">\n    <failure message=\"\(escaped(verdict.line))\"/>\n  </testcase>\n"
        }
        return xml + "</testsuite>\n"
    }

    private static func escaped(_ text: String) -> String { RunComparison.escaped(text) }
}
