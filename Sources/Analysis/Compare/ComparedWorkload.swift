import Foundation
import Reports

/// What a run measured, apart from how fast: its mode, scenario, activities, pacing and caps. A
/// gate judges two builds only on the same workload: a closed loop's throughput against an open
/// loop's at a fixed rate says nothing of either build.
public struct ComparedWorkload: Sendable, Equatable {
    /// Each part by name, in the order a refusal names them.
    public let parts: [(name: String, value: String)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.parts.map(\.name) == rhs.parts.map(\.name) && lhs.parts.map(\.value) == rhs.parts.map(\.value)
    }

    /// A run's or a profile's, from its summary.
    public init(_ summary: RunSummary) {
        let parameters = summary.parameters
        parts = [
            ("mode", summary.mode.replacingOccurrences(of: "_", with: " ")),
            ("scenario", parameters.scenario),
            ("activities", String(parameters.activities)),
            ("rate", Self.rate(parameters.pacing)),
            (
                "requests",
                summary.events.map { "\($0.total) events" } ?? parameters.requestsCap.map(String.init) ?? "all"
            ),
            ("duration", parameters.durationCapS.map { "\($0.formatted()) s" } ?? "none"),
        ]
    }

    /// Parts given by hand (a budget analysis's input, a gate's own tests).
    public init(parts: [(name: String, value: String)]) {
        self.parts = parts
    }

    /// How a run was paced, in words.
    private static func rate(_ pacing: RunSummary.PacingEntry) -> String {
        switch pacing.kind {
        case "closed_loop": "as fast as streams free"
        case "constant_rate": "\((pacing.ratePerS ?? 0).formatted())/s"
        case "rate_profile":
            "profile " + (pacing.points ?? []).map { "\($0.first ?? 0)s:\($0.last ?? 0)" }.joined(separator: ",")
        case "scenario_time": "scenario time ×\((pacing.timeScale ?? 1).formatted())"
        default: "\(pacing.kind) \(pacing.event ?? "")"
        }
    }

    /// One line naming every part in which `other` differs from this, or `nil` when none does:
    /// `the workloads differ: mode closed loop against open loop, requests all against 4000`.
    public func difference(from other: ComparedWorkload) -> String? {
        let differing = zip(parts, other.parts).filter { $0.0.value != $0.1.value }
        guard !differing.isEmpty else { return nil }
        return "the workloads differ: "
            + differing.map { "\($0.0.name) \($0.0.value) against \($0.1.value)" }.joined(separator: ", ")
    }

    /// The first difference between `baseline[0]` and any other workload of either side.
    public static func difference(baseline: [ComparedWorkload], current: [ComparedWorkload]) -> String? {
        guard let first = baseline.first else { return nil }
        return (baseline.dropFirst() + current).lazy.compactMap { first.difference(from: $0) }.first
    }
}
