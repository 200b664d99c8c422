import Foundation
import Reports

/// The figures of a lifecycle profile (`profile --api` playing the devices) that two runs are
/// compared on: the kick-off's start fan-out, the registration storm, the time to first update,
/// and what never reached its activity.
public struct LifecycleFigures: Sendable, Equatable {
    /// The start calls' fan-out to their last start push, median over calls, ms.
    public var startFanoutLastMs: Double?
    /// The token reports' p99 latency (ms) and their peak a second.
    public var reportP99Ms: Double?
    public var reportPeakPerS: Int
    /// Time to first update, p50 and p99, ms.
    public var firstUpdateP50Ms: Double?
    public var firstUpdateP99Ms: Double?
    /// Started activities never updated, as a share of those started.
    public var neverUpdatedShare: Double
    /// Pushes the devices dropped.
    public var wastedPushes: Int

    /// Figures given one by one (the comparison's own tests).
    public init(
        startFanoutLastMs: Double? = nil,
        reportP99Ms: Double? = nil,
        reportPeakPerS: Int = 0,
        firstUpdateP50Ms: Double? = nil,
        firstUpdateP99Ms: Double? = nil,
        neverUpdatedShare: Double = 0,
        wastedPushes: Int = 0
    ) {
        self.startFanoutLastMs = startFanoutLastMs
        self.reportP99Ms = reportP99Ms
        self.reportPeakPerS = reportPeakPerS
        self.firstUpdateP50Ms = firstUpdateP50Ms
        self.firstUpdateP99Ms = firstUpdateP99Ms
        self.neverUpdatedShare = neverUpdatedShare
        self.wastedPushes = wastedPushes
    }

    /// The figures of a lifecycle profile's summary.
    init(_ lifecycle: RunSummary.Lifecycle) {
        startFanoutLastMs = lifecycle.startFanout.all.lastMs?.p50
        reportP99Ms = lifecycle.storm.reports.latencyMs?.p99
        reportPeakPerS = lifecycle.storm.peakPerS
        firstUpdateP50Ms = lifecycle.timeToFirstUpdateMs?.p50
        firstUpdateP99Ms = lifecycle.timeToFirstUpdateMs?.p99
        let activities = lifecycle.activities
        neverUpdatedShare =
            activities.started > 0 ? Double(activities.startedNeverUpdated) / Double(activities.started) : 0
        wastedPushes = lifecycle.wastedPushes
    }
}

extension RunComparison {
    /// Two sets of lifecycle profiles side by side, each figure the median over a side's runs:
    /// shown, and the share of activities never updated judged as missing events are.
    static func lifecycle(baseline: [RunFigures], current: [RunFigures], limit: Double?) -> [Check] {
        let sides = (baseline.compactMap(\.lifecycle), current.compactMap(\.lifecycle))
        guard !sides.0.isEmpty, sides.0.count == baseline.count, sides.1.count == current.count else { return [] }
        func shown(_ name: String, _ value: (LifecycleFigures) -> Double?) -> Check {
            let medians = (sides.0.compactMap(value), sides.1.compactMap(value))
            let text = { (values: [Double]) in
                values.isEmpty ? "–" : String(format: "%.1f", MedianRatioInterval.median(values))
            }
            return Check(
                name: name,
                baseline: text(medians.0),
                current: text(medians.1),
                change: "",
                limit: "",
                verdict: .info
            )
        }
        return [
            shown("lifecycle_start_fanout_last_p50_ms", \.startFanoutLastMs),
            shown("lifecycle_token_report_p99_ms", \.reportP99Ms),
            shown("lifecycle_token_reports_peak_per_s") { Double($0.reportPeakPerS) },
            shown("lifecycle_time_to_first_update_p50_ms", \.firstUpdateP50Ms),
            shown("lifecycle_time_to_first_update_p99_ms", \.firstUpdateP99Ms),
            shown("lifecycle_wasted_pushes") { Double($0.wastedPushes) },
            share(
                "lifecycle_never_updated_percent",
                sides.0.map(\.neverUpdatedShare),
                sides.1.map(\.neverUpdatedShare),
                limit: limit
            ),
        ]
    }
}
