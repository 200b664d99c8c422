import ArrivalMatching
import Basics
import DeviceEmulation
import Foundation
import Reports
import RequestFiles

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
    /// The service's pushes as matched: which calls owed each token a push, and what came.
    let arrivals: ArrivalBook
    let emulationCPUSeconds: Double
    /// Whether the service had stopped pushing when the profile ended it (quiet for `--settle`).
    var stoppedPushing = false

    /// The pushes the devices dropped, by cause (`DeviceFleet.Drop`'s names).
    public var deviceDrops: [String: Int] {
        Dictionary(uniqueKeysWithValues: fleet.drops.map { ($0.key.rawValue, $0.value) })
    }

    /// The devices' side of `fleet`, whose service's pushes `arrivals` matched, with no answers
    /// of the service's recorded: what the benchmarks time the report on.
    public init(file: APIFile, fleet: DeviceFleet, arrivals: ArrivalBook) {
        self.init(
            file: file,
            starts: APIAnswers(),
            devices: DeviceReporter.Answers(),
            settings: fleet.settings,
            fleet: fleet.snapshot,
            workload: fleet.workload,
            arrivals: arrivals,
            emulationCPUSeconds: fleet.emulationCPUSeconds
        )
    }

    init(
        file: APIFile,
        starts: APIAnswers,
        devices: DeviceReporter.Answers,
        settings: DeviceSettings,
        serviceCPUByPhase: [String: Double]? = nil,
        fleet: FleetState,
        workload: ServiceWorkload,
        arrivals: ArrivalBook,
        emulationCPUSeconds: Double
    ) {
        self.file = file
        self.starts = starts
        self.devices = devices
        self.settings = settings
        self.serviceCPUByPhase = serviceCPUByPhase
        self.fleet = fleet
        self.workload = workload
        self.arrivals = arrivals
        self.emulationCPUSeconds = emulationCPUSeconds
    }

    /// The figures the reports show: O(activities + calls + the pushes that arrived).
    public func figures() -> RunSummary.Lifecycle {
        let lifecycle = file.lifecycle
        return RunSummary.Lifecycle(
            starts: lifecycle?.start.map {
                starts.phase(request: $0, per: lifecycle?.startPerActivity == true ? "activity" : "group")
            },
            startPushes: workload.starts.isEmpty
                ? nil
                : RunSummary.Lifecycle.StartPushes(accepted: fleet.startPushes, refused: fleet.startPushesRefused),
            startCalls: startCalls,
            reissuedStartTokens: lifecycle?.startToken.flatMap {
                devices.startTokens.sent > 0 ? devices.startTokens.phase(request: $0, per: nil) : nil
            },
            storm: RunSummary.Lifecycle.Storm(
                reports: devices.tokenReports.phase(request: file.lifecycle!.tokenReport, per: nil),
                perSecond: devices.reportsPerSecond,
                answeredPerSecond: devices.reportsAnsweredPerSecond,
                startToReportMs: fleet.startToReport.millisecondPercentiles
            ),
            closes: lifecycle?.close.flatMap {
                devices.closes.sent > 0 ? devices.closes.phase(request: $0, per: nil) : nil
            },
            timeToFirstUpdateMs: fleet.timeToFirstUpdate.millisecondPercentiles,
            activities: activities(),
            wastedPushesByCause: deviceDrops,
            serviceCPUByPhaseS: serviceCPUByPhase,
            serviceCPUUsPer: serviceCPUByPhase.map(cpuUsPerUnit),
            emulation: RunSummary.Lifecycle.Emulation(
                cpuS: emulationCPUSeconds,
                deviceEvents: fleet.deviceEvents,
                cpuUsPerEvent: fleet.deviceEvents > 0 ? emulationCPUSeconds * 1e6 / Double(fleet.deviceEvents) : nil
            ),
            devices: settings.asReported
        )
    }

    /// The start pushes against the moments they were owed: when their calls were due, or the
    /// times those calls gave a service that starts on its own clock (`service_sends.start`).
    public var startsAgainstOwed: KindFigures { fleet.startFanout(workload: workload).starts }

    /// Update pushes the mock received: every push but the starts.
    var updatePushes: Int { max(0, arrivals.figures.pushes - fleet.startPushes - fleet.startPushesRefused) }

    /// Each phase's CPU divided by its own work, µs: a start push, a token report the service
    /// answered, an update push; a phase with no work has none.
    private func cpuUsPerUnit(_ phases: [String: Double]) -> [String: Double] {
        let reports = devices.tokenReports
        let work = [
            ("start", "start_push", fleet.startPushes + fleet.startPushesRefused),
            ("registration_storm", "token_report", reports.succeeded + reports.refused),
            ("updates", "update_push", updatePushes),
        ]
        var perUnit: [String: Double] = [:]
        for (phase, unit, count) in work where count > 0 {
            if let seconds = phases[phase] { perUnit[unit] = seconds * 1e6 / Double(count) }
        }
        return perUnit
    }

    /// Each start call's fan-out: its start pushes that started an activity.
    private var startCalls: [ServiceFigures.Call] {
        zip(workload.starts, fleet.startFanout(workload: workload).fanouts).map { start, fanout in
            ServiceFigures.Call(
                kind: "start",
                group: start.group,
                dueMicroseconds: start.owedMicroseconds,
                fanout: fanout
            )
        }
    }

    /// What became of each activity the scenario starts, and why a started one never updated.
    private func activities() -> RunSummary.Lifecycle.Activities {
        let expected = workload.starts.reduce(0) { $0 + $1.activities.count } + workload.localStarts.count
        var started = 0
        var updated = 0
        var causes: [String: Int] = [:]
        let calls = arrivals.calls
        var owedNoUpdate = 0
        for (activity, device) in fleet.devices.enumerated() {
            guard let life = device.activity else { continue }
            started += 1
            if life.updated {
                updated += 1
                continue
            }
            guard arrivals.schedulesUpdate(token: workload.updateToken(of: activity)) else {
                owedNoUpdate += 1
                continue
            }
            causes[neverUpdatedCause(of: activity, calls: calls).rawValue, default: 0] += 1
        }
        return RunSummary.Lifecycle.Activities(
            expected: expected,
            started: started,
            neverStarted: expected - started,
            updated: updated,
            startedNeverUpdated: started - updated - owedNoUpdate,
            neverUpdatedByCause: causes,
            dismissed: fleet.devices.count(where: \.dismissed),
            rotated: fleet.devices.count { $0.activity?.rotatedNs != nil },
            extraStarts: fleet.extraStarts,
            startsBeforeTheirCall: fleet.startsBeforeTheirCall,
            ended: fleet.devices.count { $0.endedNs != nil && !$0.dismissed },
            endWasFirstPush: fleet.devices.count {
                $0.endedNs != nil && !$0.dismissed && $0.activity?.updated == false
            }
        )
    }
}

extension LifecycleOutcome {
    /// Why a started activity was never updated, from the evidence: the device's own books (did
    /// it report, did the service answer, did its user close it, did its token rotate) and the
    /// arrival book's (which calls owed its token a push, what came, what APNs answered, and
    /// how much of those calls reached anyone).
    enum NeverUpdated: String {
        /// Its app never reported its token (a user who never allowed it, a killed app).
        case neverReported = "never_reported"
        /// The service refused its report, or did not answer it in time.
        case reportFailed = "report_failed"
        /// The report was sent and still unanswered when the profile ended.
        case reportNotAnswered = "report_not_answered"
        /// The report was due and never sent: the profile ended first (or it waited in
        /// PushBench's own queue), so the service never had the chance.
        case reportNeverSent = "report_never_sent"
        /// No call was sent after the service learned the token.
        case reportedAfterLastUpdate = "reported_after_last_update"
        /// Its user closed it before the first call that owed it an update was sent.
        case endedBeforeUpdate = "ended_before_update"
        /// The service sent its updates and APNs refused every one.
        case apnsRefused = "apns_refused"
        /// Its token had rotated, the service never learned the new one, and its pushes to the
        /// old one came past its grace.
        case tokenRotated = "token_rotated"
        /// The calls that owed it an update reached few of their other activities either: the
        /// service fell behind on everyone (its pushes still queued, or too late to show).
        case serviceBehind = "service_behind"
        /// Those calls reached few of their activities, and the service had stopped pushing
        /// when the profile ended (no push came for `--settle`): not a backlog, pushes it never
        /// sent.
        case notSentByService = "not_sent_by_service"
        /// Those calls reached most of their other activities, and nothing came to this one:
        /// the service lost the token it had answered for.
        case reportLostByService = "report_lost_by_service"
    }

    /// When the calls that owed an activity an update delivered less than this share of all they
    /// owed, the service fell behind on everyone; above it, it lost that one token.
    static let behindBelowShare = 0.5

    /// Why started `activity` was never updated; `calls` are the book's fan-outs.
    func neverUpdatedCause(of activity: Int, calls: [ArrivalBook.CallFanout]) -> NeverUpdated {
        let device = fleet.devices[activity]
        if fleet.plan.neverReports[activity] { return .neverReported }
        switch device.activity?.report ?? .due {
        case .failed: return .reportFailed
        case .due: return device.dismissed ? .endedBeforeUpdate : .reportNeverSent
        case .sent: return device.dismissed ? .endedBeforeUpdate : .reportNotAnswered
        case .answered: break
        }
        let evidence = arrivals.evidence(token: workload.updateToken(of: activity))
        guard let firstOwedNs = evidence.firstOwedSentNs else {
            return device.dismissed ? .endedBeforeUpdate : .reportedAfterLastUpdate
        }
        if device.dismissed, let endedNs = device.endedNs, endedNs <= firstOwedNs { return .endedBeforeUpdate }
        if evidence.accepted == 0, evidence.refused > 0 { return .apnsRefused }
        if evidence.accepted > 0, device.activity?.rotatedNs != nil { return .tokenRotated }
        let owed = evidence.owedCalls.reduce(0) { $0 + calls[$1].expected }
        let reached = evidence.owedCalls.reduce(0) { $0 + calls[$1].arrived }
        // Pushes that came and were not shown came after the user closed it: late, like a backlog.
        let behind = evidence.accepted > 0 || Double(reached) < Self.behindBelowShare * Double(owed)
        guard behind else { return .reportLostByService }
        // Behind only with evidence of a backlog: a service quiet for --settle had sent all it would.
        return stoppedPushing && evidence.accepted == 0 ? .notSentByService : .serviceBehind
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
