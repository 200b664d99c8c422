import Foundation
import Reports

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
    /// Transport failures by class (`FailureClass` raw values), the same for both transports.
    public var erroredByKind: [String: Int]
    /// The sender's CPU per request, microseconds.
    public var cpuPerRequestUs: Double
    /// Whether the mock's own count agreed with the client's, when a mock counted.
    public var serverAgrees: Bool?
    /// For a profile (`pushbench profile`): the events handed to the sender and those no push
    /// answered. A profile's throughput is the sender's pushes a second, its percentiles its lag
    /// and its CPU the sender's, per push.
    public var events: Int?
    public var missingEvents: Int?
    /// For a profile: pushes that repeated an event already accepted.
    public var duplicateEvents: Int?
    /// Where the sender's CPU went, percent by class of code (`CPUShare`'s keys), when its stacks
    /// were sampled (`--perf`).
    public var cpuSharesPercent: [String: Double]?
    /// For a lifecycle profile: the devices' side.
    public var lifecycle: LifecycleFigures?
    /// What the run measured, to refuse comparing unlike workloads; `nil` for figures given by hand.
    public var workload: ComparedWorkload?
    /// The summary's kind; `nil` for figures given by hand.
    public var kind: RunSummary.Kind?

    /// Whether the figures are a profile's: its summary's kind, or for figures given by hand,
    /// whether they count events.
    public var isProfile: Bool { kind.map { $0 == .profile } ?? (events != nil) }
    /// Events no push answered, as a share of those handed over.
    public var missingRate: Double {
        guard let events, let missingEvents, events > 0 else { return 0 }
        return Double(missingEvents) / Double(events)
    }

    /// Pushes that repeated an event already accepted, as a share of the events handed over.
    public var duplicateRate: Double {
        guard let events, let duplicateEvents, events > 0 else { return 0 }
        return Double(duplicateEvents) / Double(events)
    }

    /// Requests that did not succeed, as a share of those sent.
    public var errorRate: Double { sent > 0 ? Double(rejected + errored + timedOut) / Double(sent) : 0 }

    /// Reads a run's `summary.json`, or the run folder holding one.
    /// - Throws: `ComparisonError` naming the file and the missing or malformed key.
    public init(contentsOf path: String) throws {
        do {
            self.init(try RunSummary.read(contentsOf: path))
        } catch {
            throw ComparisonError(error.description)
        }
    }

    /// The figures a gate judges in `summary`.
    public init(_ summary: RunSummary) {
        throughputPerSecond = summary.throughputPerS
        p50Us = Double(summary.latencyUs.p50)
        p99Us = Double(summary.latencyUs.p99)
        p999Us = Double(summary.latencyUs.p99_9)
        sent = summary.counts.sent
        succeeded = summary.counts.succeeded
        rejected = summary.counts.rejected
        errored = summary.counts.errored
        timedOut = summary.counts.timedOut
        balanced = summary.accountingBalanced
        rejectedByReason = summary.rejectedByReason
        erroredByKind = summary.erroredByKind
        cpuPerRequestUs = summary.engineCPUUsPerRequest
        serverAgrees = summary.serverCounts?.matchesClient
        cpuSharesPercent = summary.cpuSamples?.sharesPercent
        lifecycle = summary.lifecycle.map(LifecycleFigures.init)
        workload = ComparedWorkload(summary)
        kind = summary.resolvedKind
        if summary.resolvedKind == .profile, let sender = summary.sender, let lag = summary.lag,
            let events = summary.events
        {
            throughputPerSecond = sender.pushesPerS
            p50Us = lag.p50Ms * 1000
            p99Us = lag.p99Ms * 1000
            p999Us = lag.p999Ms * 1000
            cpuPerRequestUs = sender.cpuUsPerPush
            self.events = events.total
            missingEvents = events.missing
            duplicateEvents = events.duplicates
        }
    }

    /// Figures given one by one (a gate's own tests).
    public init(
        throughputPerSecond: Double,
        p50Us: Double,
        p99Us: Double,
        p999Us: Double,
        sent: Int,
        succeeded: Int,
        rejected: Int,
        errored: Int,
        timedOut: Int,
        balanced: Bool,
        rejectedByReason: [String: Int],
        erroredByKind: [String: Int] = [:],
        cpuPerRequestUs: Double,
        serverAgrees: Bool? = nil
    ) {
        self.throughputPerSecond = throughputPerSecond
        self.p50Us = p50Us
        self.p99Us = p99Us
        self.p999Us = p999Us
        self.sent = sent
        self.succeeded = succeeded
        self.rejected = rejected
        self.errored = errored
        self.timedOut = timedOut
        self.balanced = balanced
        self.rejectedByReason = rejectedByReason
        self.erroredByKind = erroredByKind
        self.cpuPerRequestUs = cpuPerRequestUs
        self.serverAgrees = serverAgrees
    }
}

/// Input a comparison cannot use: a missing or malformed summary or threshold.
public struct ComparisonError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
