import ArrivalMatching
import Foundation
import Reports

/// What a lifecycle profile measured of the devices' side: the operator's starts, the
/// devices' requests and what the service answered, the fleet's books, and the costs.
public struct LifecycleOutcome: Sendable {
    public var file: APIFile
    public var starts: APIAnswers
    public var devices: DeviceReporter.Answers
    public var settings: DeviceSettings
    /// The service's CPU seconds by phase (`start`, `registration_storm`, `updates`), when
    /// profile started it.
    public var serviceCPUByPhase: [String: Double]?
    let fleet: FleetState
    let workload: ServiceWorkload
    let emulationCPUSeconds: Double

    /// The pushes the devices dropped, by cause (`DeviceFleet.Drop`'s names).
    public var deviceDrops: [String: Int] {
        Dictionary(uniqueKeysWithValues: fleet.drops.map { ($0.key.rawValue, $0.value) })
    }

    /// The figures the reports show.
    func figures() -> RunSummary.Lifecycle {
        let lifecycle = file.lifecycle
        let startCalls = fleet.startArrivals.enumerated().map { index, arrivals in
            let start = workload.starts[index]
            let milestones = ArrivalBook.milestones(arrivals.sorted(), expected: start.activities.count)
            return ServiceFigures.Call(
                kind: "start",
                group: start.group,
                dueS: Double(start.dueMicroseconds) / 1e6,
                expected: start.activities.count,
                arrived: arrivals.count,
                firstMs: milestones.firstMs,
                halfMs: milestones.halfMs,
                p99Ms: milestones.p99Ms,
                lastMs: milestones.lastMs
            )
        }
        let peak = devices.reportsPerSecond.max() ?? 0
        return RunSummary.Lifecycle(
            starts: lifecycle?.start.map {
                starts.phase(request: $0, per: lifecycle?.startPerActivity == true ? "activity" : "group")
            },
            startCalls: startCalls,
            reissuedStartTokens: lifecycle?.startToken.flatMap {
                devices.startTokens.sent > 0 ? devices.startTokens.phase(request: $0, per: nil) : nil
            },
            storm: RunSummary.Lifecycle.Storm(
                reports: devices.tokenReports.phase(request: file.lifecycle!.tokenReport, per: nil),
                perSecond: devices.reportsPerSecond,
                peakPerS: peak,
                startToReportMs: fleet.startToReport.millisecondPercentiles
            ),
            closes: lifecycle?.close.flatMap {
                devices.closes.sent > 0 ? devices.closes.phase(request: $0, per: nil) : nil
            },
            timeToFirstUpdateMs: fleet.timeToFirstUpdate.millisecondPercentiles,
            activities: activities(),
            wastedPushesByCause: deviceDrops,
            serviceCPUByPhaseS: serviceCPUByPhase,
            emulation: RunSummary.Lifecycle.Emulation(
                cpuS: emulationCPUSeconds,
                deviceEvents: fleet.deviceEvents,
                cpuUsPerEvent: fleet.deviceEvents > 0 ? emulationCPUSeconds * 1e6 / Double(fleet.deviceEvents) : nil
            ),
            devices: settings.asReported
        )
    }

    /// What became of each activity the scenario starts, and why a started one never updated.
    private func activities() -> RunSummary.Lifecycle.Activities {
        let expected = workload.starts.reduce(0) { $0 + $1.activities.count } + workload.localStarts.count
        var started = 0
        var updated = 0
        var causes: [String: Int] = [:]
        for (activity, device) in fleet.devices.enumerated() {
            guard let life = device.activity else { continue }
            started += 1
            if life.firstUpdateNs != nil {
                updated += 1
                continue
            }
            causes[neverUpdatedCause(of: activity), default: 0] += 1
        }
        return RunSummary.Lifecycle.Activities(
            expected: expected,
            started: started,
            neverStarted: expected - started,
            updated: updated,
            startedNeverUpdated: started - updated,
            neverUpdatedByCause: causes,
            dismissed: fleet.devices.filter(\.dismissed).count,
            rotated: fleet.devices.filter { $0.activity?.rotatedNs != nil }.count,
            extraStarts: fleet.extraStarts,
            startsBeforeTheirCall: fleet.startsBeforeTheirCall
        )
    }
}

extension LifecycleOutcome {
    /// Why a started activity was never updated. Its app never reported its token, or the
    /// service refused the report or did not answer it in time; or its user closed it before an
    /// update reached it; or it reported after the last update call was due; or one was due
    /// after, and its token had rotated (the updates went to the old one past its grace), or the
    /// service lost the token it was told.
    func neverUpdatedCause(of activity: Int) -> String {
        let device = fleet.devices[activity]
        if fleet.plan.neverReports[activity] { return "never_reported" }
        guard let life = device.activity else { return "never_started" }
        let reportedNs: Int64
        switch life.report {
        case .failed: return "report_failed"
        case .due: return device.dismissed ? "ended_before_update" : "report_not_answered"
        case .answered(let atNs): reportedNs = atNs
        }
        if device.dismissed { return "ended_before_update" }
        let dueAfterReport = workload.calls.contains { call in
            call.activities.contains(activity)
                && (fleet.dueNs(microseconds: call.dueMicroseconds) ?? .min) >= reportedNs
        }
        guard dueAfterReport else { return "reported_after_last_update" }
        return life.rotatedNs == nil ? "report_lost_by_service" : "token_rotated"
    }
}

extension DeviceSettings {
    /// Each setting as the report shows it.
    var asReported: [String: String] {
        [
            "report_delay": reportDelay.description,
            "never_report": "\(neverReportShare)",
            "rotation_rate_per_min": "\(rotationSharePerMinute)",
            "rotation_grace_s": "\(rotationGrace.inSeconds)",
            "start_token_reissue": "\(startTokenReissueShare)",
            "dismiss": "\(dismissShare)",
            "activity_limit": "\(activityLimit)",
            "unregister_delay_s": "\(unregisterDelay.inSeconds)",
        ]
    }
}
