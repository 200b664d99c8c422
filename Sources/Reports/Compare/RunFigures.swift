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
        var isFolder: ObjCBool = false
        let file =
            FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            ? (path as NSString).appendingPathComponent("summary.json") : path
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ComparisonError("\(file): cannot read it (no such file, or no permission)")
        }
        guard let summary = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw ComparisonError("\(file): not a JSON object; expected a run's summary.json")
        }
        do {
            try self.init(summary: summary)
        } catch let error as ComparisonError {
            throw ComparisonError("\(file): \(error)")
        }
    }

    /// Reads the keys a gate judges from a decoded `summary.json`.
    public init(summary: [String: Any]) throws {
        guard let version = summary["schema_version"] as? Int, version == SummaryDocument.schemaVersion else {
            throw ComparisonError(
                "schema_version is not \(SummaryDocument.schemaVersion): not a summary.json this pushbench reads"
            )
        }
        func number(_ object: [String: Any]?, _ key: String, _ path: String) throws -> Double {
            guard let value = (object?[key] as? NSNumber)?.doubleValue else {
                throw ComparisonError("\(path) is missing or not a number")
            }
            return value
        }
        let counts = summary["counts"] as? [String: Any]
        let latency = summary["latency_us"] as? [String: Any]
        throughputPerSecond = try number(summary, "throughput_per_s", "throughput_per_s")
        p50Us = try number(latency, "p50", "latency_us.p50")
        p99Us = try number(latency, "p99", "latency_us.p99")
        p999Us = try number(latency, "p99_9", "latency_us.p99_9")
        sent = Int(try number(counts, "sent", "counts.sent"))
        succeeded = Int(try number(counts, "succeeded", "counts.succeeded"))
        rejected = Int(try number(counts, "rejected", "counts.rejected"))
        errored = Int(try number(counts, "errored", "counts.errored"))
        timedOut = Int(try number(counts, "timed_out", "counts.timed_out"))
        balanced = summary["accounting_balanced"] as? Bool ?? false
        rejectedByReason = summary["rejected_by_reason"] as? [String: Int] ?? [:]
        cpuPerRequestUs = try number(summary, "engine_cpu_us_per_request", "engine_cpu_us_per_request")
        serverAgrees = (summary["server_counts"] as? [String: Any])?["matches_client"] as? Bool
    }
}

/// Input a comparison cannot use: a missing or malformed summary or threshold.
public struct ComparisonError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
