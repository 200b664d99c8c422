import BudgetReports
import Foundation
import LoadEngine

/// The questions a run was for, answered in one sentence each and in the order a reader asks
/// them: what was sent and how fast, whether the books balance, how long pushes took, who set
/// the pace, and what the devices would show. The first screen of `report.html`, under the
/// failure when the run failed.
public struct RunHeadline: Sendable {
    /// One answer: its topic and its sentence, and whether it is good news (`nil`: neither).
    public struct Line: Sendable, Equatable {
        public let topic: String
        public let sentence: String
        public let good: Bool?

        /// A line on `topic`; `good` says whether it reads as good news, `nil` as neither.
        package init(topic: String, sentence: String, good: Bool?) {
            self.topic = topic
            self.sentence = sentence
            self.good = good
        }
    }

    /// The answers, in reading order.
    public let lines: [Line]

    /// The headline of `result`, whose target counted `server` (if it did) and whose accepted
    /// pushes `budget` modelled (if it did).
    public init(_ result: RunResult, server: ServerCounts?, budget: BudgetReport?) {
        var lines = [
            Self.sent(result), Self.books(result, server: server), Self.latency(result),
            Line(topic: "pace", sentence: Self.sentence(GeneratorHealth.verdict(result)), good: nil),
        ]
        if let budget {
            lines.append(
                Line(topic: "budget", sentence: budget.verdict, good: budget.result.tally.activitiesThrottled == 0)
            )
        }
        self.lines = lines
    }

    private static func sent(_ result: RunResult) -> Line {
        let configuration = result.configuration
        let scenario = configuration.scenario
        var sentence =
            "\(result.counts.sent) pushes of the \(scenario.name) scenario (\(scenario.activities) activities) "
        sentence += String(format: "sent in %.2f s, %@: ", result.durationSeconds, configuration.pacing.label)
        sentence += String(format: "%.0f succeeded per second", result.successesPerSecond)
        sentence += String(format: " of %.0f attempted", result.throughputPerSecond)
        if !result.tookEveryEvent {
            sentence +=
                "; the run stopped before the scenario's end"
                + (configuration.requests.map { " (--requests \($0))" } ?? "")
        }
        return Line(topic: "sent", sentence: sentence + ".", good: result.counts.succeeded > 0)
    }

    private static func books(_ result: RunResult, server: ServerCounts?) -> Line {
        let counts = result.counts
        let equation =
            "\(counts.sent) sent = \(counts.succeeded) succeeded + \(counts.rejected) rejected + "
            + "\(counts.errored) errored + \(counts.timedOut) timed out"
        guard counts.isBalanced else {
            return Line(
                topic: "books",
                sentence: "The books do not balance: \(counts.sent) sent, \(counts.completed) ended.",
                good: false
            )
        }
        var sentence = "The books balance: \(equation)"
        var good = true
        if let server {
            let check = ServerCheck(result: result, server: server)
            good = check.matches
            sentence +=
                check.matches
                ? "; the mock's own count agrees"
                : "; the mock's count differs: " + check.differences.joined(separator: "; ")
        }
        return Line(topic: "books", sentence: sentence + ".", good: good)
    }

    private static func latency(_ result: RunResult) -> Line {
        guard result.latency.totalCount > 0 else {
            return Line(topic: "latency", sentence: "No push was answered, so there is no latency.", good: false)
        }
        let percentiles = RunSummary.Percentiles(result.latency)
        func ms(_ micros: UInt64) -> String { String(format: "%.2f ms", Double(micros) / 1000) }
        return Line(
            topic: "latency",
            sentence: "Latency \(result.latencyOrigin): p50 \(ms(percentiles.p50)), p99 \(ms(percentiles.p99)), "
                + "max \(ms(percentiles.max)) over \(result.latency.totalCount) answered pushes.",
            good: nil
        )
    }

    /// `text` as a sentence: capitalized, ending in a full stop.
    private static func sentence(_ text: String) -> String {
        (text.prefix(1).uppercased() + text.dropFirst()) + (text.hasSuffix(".") ? "" : ".")
    }
}
