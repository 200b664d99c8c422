import Foundation

/// The figures of one run that a CI gate judges, read from its `summary.json`.
public struct RunFigures: Sendable, Equatable {
    /// Completed requests per second.
    public var throughputPerSecond: Double
    /// Latency percentiles, microseconds.
    public var p50Us: Double
    public var p99Us: Double
    public var p999Us: Double
    /// Requests sent, and their outcomes.
    public var sent: Int
    public var succeeded: Int
    public var rejected: Int
    public var errored: Int
    public var timedOut: Int
    /// Whether sent = succeeded + rejected + errored + timed out.
    public var balanced: Bool
    /// Rejections by APNs reason.
    public var rejectedByReason: [String: Int]
    /// The sender's CPU per request, microseconds.
    public var cpuPerRequestUs: Double
    /// Whether the mock's own count agreed with the client's, when a mock counted.
    public var serverAgrees: Bool?

    /// Requests that did not succeed, as a share of those sent.
    public var errorRate: Double { sent > 0 ? Double(rejected + errored + timedOut) / Double(sent) : 0 }

    /// Reads a run's `summary.json`, or the run folder holding one.
    /// - Throws: `ComparisonError` naming the file and the missing or malformed key.
    public init(contentsOf path: String) throws {
        do {
            try self.init(SummaryFile(contentsOf: path))
        } catch {
            throw ComparisonError(error.description)
        }
    }

    /// Reads the keys a gate judges from a decoded `summary.json`.
    public init(summary: [String: Any]) throws {
        do {
            try self.init(SummaryFile(object: summary))
        } catch {
            throw ComparisonError(error.description)
        }
    }

    private init(_ summary: SummaryFile) throws(SummaryError) {
        throughputPerSecond = try summary.number("throughput_per_s")
        p50Us = try summary.number("latency_us.p50")
        p99Us = try summary.number("latency_us.p99")
        p999Us = try summary.number("latency_us.p99_9")
        sent = try summary.integer("counts.sent")
        succeeded = try summary.integer("counts.succeeded")
        rejected = try summary.integer("counts.rejected")
        errored = try summary.integer("counts.errored")
        timedOut = try summary.integer("counts.timed_out")
        balanced = summary.value("accounting_balanced") as? Bool ?? false
        rejectedByReason = summary.value("rejected_by_reason") as? [String: Int] ?? [:]
        cpuPerRequestUs = try summary.number("engine_cpu_us_per_request")
        serverAgrees = summary.value("server_counts.matches_client") as? Bool
    }
}

/// Input a comparison cannot use: a missing or malformed summary or threshold.
public struct ComparisonError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
