import Basics
import Foundation
import Sampling
import SenderDoctor
import Transport

/// What a report says about where and how a run happened, beside what it measured.
public struct RunContext: Sendable {
    /// The run's identifier and folder name under `Reports/`.
    public var runID: String
    /// The command line, as typed.
    public var commandLine: String
    /// The target: `embedded mock`, a host, or `production`/`sandbox`.
    public var targetDescription: String
    /// The server's own counts, when the target is a PushBench mock.
    public var serverCounts: ServerCounts?
    /// The binary that ran it, when known.
    public var build: BuildDescription?
    /// The sender doctor's findings on the run's own traffic, when the embedded mock recorded it
    /// (`run --practice`): what a mistake made on purpose looks like from the server.
    public var practices: SenderPractices? = nil
    /// The sender's call stacks sampled with perf (`--perf`), or why they could not be.
    public var cpuSampling: Result<StackProfile, PerfUnavailable>? = nil
    /// Judges the summary before it is written (`--threshold`): its verdicts go into
    /// `summary.json`'s `thresholds`, so the file says what the run was gated by.
    public var judge: (@Sendable (RunSummary) -> [RunSummary.ThresholdVerdict])? = nil

    /// Creates a context.
    public init(
        runID: String,
        commandLine: String,
        targetDescription: String,
        serverCounts: ServerCounts? = nil,
        build: BuildDescription? = nil
    ) {
        self.runID = runID
        self.commandLine = commandLine
        self.targetDescription = targetDescription
        self.serverCounts = serverCounts
        self.build = build
    }

    /// A sortable run identifier from the current UTC time, e.g. `20261121-204512-3f9a`; or, for a
    /// run whose schedule starts at `startingAt` (UNIX seconds, as every shard of one run is
    /// given), from that instant, e.g. `20261121-210000-sync`, so the shards share it.
    public static func makeRunID(now: Date = Date(), startingAt: Double? = nil) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        if let startingAt { return formatter.string(from: Date(timeIntervalSince1970: startingAt)) + "-sync" }
        let suffix = String(UInt16.random(in: 0...UInt16.max), radix: 16)
        return formatter.string(from: now) + "-" + String(repeating: "0", count: 4 - suffix.count) + suffix
    }
}

/// A mock server's own count of what it answered, to check a run's books against.
public struct ServerCounts: Sendable, Equatable {
    /// Pushes the server answered.
    public var pushes: Int
    /// Pushes it accepted.
    public var accepted: Int
    /// Pushes it rejected, by reason.
    public var rejectedByReason: [String: Int]
    /// TLS connections it accepted.
    public var connections: Int
    /// Which start of the mock counted (its `/stats` `instance`), when it says.
    public var instance: String?

    /// Creates counts.
    public init(pushes: Int, accepted: Int, rejectedByReason: [String: Int], connections: Int, instance: String? = nil)
    {
        self.pushes = pushes
        self.accepted = accepted
        self.rejectedByReason = rejectedByReason
        self.connections = connections
        self.instance = instance
    }

    /// Reads a PushBench mock's `GET /stats` body; `nil` for anything else.
    public init?(statsJSON bytes: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let pushes = object["pushes"] as? Int, let accepted = object["accepted"] as? Int,
            let reasons = object["rejected_by_reason"] as? [String: Int],
            let connections = object["connections_accepted"] as? Int
        else { return nil }
        let broadcastReasons = object["broadcast_rejected_by_reason"] as? [String: Int] ?? [:]
        self.init(
            pushes: pushes + (object["broadcasts"] as? Int ?? 0),
            accepted: accepted + (object["broadcasts_accepted"] as? Int ?? 0),
            rejectedByReason: reasons.merging(broadcastReasons, uniquingKeysWith: +),
            connections: connections,
            instance: object["instance"] as? String
        )
    }

    /// What the server counted between `earlier` and these counts (the mock's are cumulative);
    /// `nil` when the mock restarted in between, since then neither snapshot covers the run.
    public func since(_ earlier: ServerCounts) -> ServerCounts? {
        guard instance == earlier.instance else { return nil }
        var reasons = rejectedByReason
        for (reason, count) in earlier.rejectedByReason { reasons[reason, default: 0] -= count }
        return ServerCounts(
            pushes: pushes - earlier.pushes,
            accepted: accepted - earlier.accepted,
            rejectedByReason: reasons.filter { $0.value != 0 },
            connections: connections - earlier.connections,
            instance: instance
        )
    }
}
