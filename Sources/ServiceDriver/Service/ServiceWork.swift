import ArrivalMatching
import Arrivals
import Basics
import DeviceEmulation
import Foundation
import RequestFiles
import Transport
import Workload

/// A service profile's moving parts while it runs: the session driving the API, the book its
/// pushes are matched in, the devices when they are played, and when the work is done. The
/// profiler's watch loop looks at it once a tick (`observe`) and reads what it measured at the
/// end (`outcome`).
public struct ServiceWork {
    public let workload: ServiceWorkload
    public let book: ArrivalBook
    public let session: ServiceSession
    /// The devices, for a lifecycle file.
    public let fleet: DeviceFleet?
    private let clock: ProfileClock
    private let settleSeconds: Double
    /// The moments noted once each: registration began, the clock started (with the service's
    /// CPU then), the last call was answered.
    private let phaseNotes = PhaseNotes()
    /// For a lifecycle, the service's CPU when the starts and the registration storm were done.
    private let lifecycleNotes = LifecyclePhaseNotes()
    /// When the last push the service owes on its own clock is due, microseconds on the clock.
    private let lastOwnClockDueUs: Int64?

    /// The work of `scenario` for the service behind `api`: its first `requests` calls when given,
    /// due as `timing` says, on `clock`.
    /// - Throws: `ProfileError.badInput` for a scenario or file the service cannot be handed.
    public init(
        _ api: ServiceAPI,
        scenario: Scenario,
        requests: Int?,
        timing: EventTiming,
        clock: ProfileClock
    ) throws {
        try Self.check(timing, for: api.file)
        let workload = try ServiceWorkload(
            scenario: scenario,
            perActivity: api.file.perActivity,
            requests: requests,
            timing: timing,
            startsPerActivity: api.file.lifecycle.map(\.startPerActivity),
            keepsActivityTimes: api.file.needsActivityTimes,
            serviceSends: api.file.serviceSends
        )
        if let lifecycle = api.file.lifecycle, lifecycle.start == nil, !workload.starts.isEmpty {
            throw ProfileError.badInput(
                "\(api.file.path): the scenario's push-to-start cohorts need the operator's start request (start:); give one, or start them locally (push_to_start: false)"
            )
        }
        try Self.checkFields(of: api.file, against: scenario)
        if api.file.event == nil, let call = workload.calls.first(where: { !$0.ownClock }) {
            throw ProfileError.badInput(
                "\(api.file.path): the scenario has \(call.phase.rawValue)s for the operator to send (its first: \(call.kind.rawValue)) and the file no event request; give event:, or "
                    + (call.phase == .end
                        ? "service_sends.end"
                        : "service_sends.update: own, or a scenario whose cohorts say updates: none")
            )
        }
        self.workload = workload
        lastOwnClockDueUs = workload.calls.lazy.filter(\.ownClock).map(\.dueMicroseconds).max()
        let book = workload.arrivalBook()
        self.book = book
        let fleet = api.file.lifecycle.map {
            DeviceFleet(
                workload: workload,
                settings: api.devices,
                app: $0.app,
                clock: clock,
                keepsStartPushes: api.file.namesStartPush
            )
        }
        self.fleet = fleet
        session = ServiceSession(
            file: api.file,
            workload: workload,
            settings: api.settings,
            book: book,
            clock: clock,
            reporter: fleet.map { DeviceReporter(file: api.file, fleet: $0, arrivals: book, settings: api.settings) }
        )
        settleSeconds = api.settle.inSeconds
        self.clock = clock
    }

    /// Refuses a lifecycle off the scenario's clock: its devices start and report on that
    /// clock, and calls due all at once (or at an even rate) would go out before any device had
    /// reported its token.
    /// - Throws: `ProfileError.badInput` naming the flag to give.
    public static func check(_ timing: EventTiming, for file: APIFile) throws {
        guard file.lifecycle != nil, !timing.followsScenarioClock else { return }
        throw ProfileError.badInput(
            "\(file.path): a lifecycle runs on the scenario's clock, so that its devices start and report before their updates are due: give --time-scale (such as --time-scale 60)"
        )
    }

    /// Refuses a `{{content_state.NAME}}` that names no member of the scenario's content
    /// states: it would send nothing.
    /// - Throws: `ProfileError.badInput` naming the members there are.
    static func checkFields(of file: APIFile, against scenario: Scenario) throws {
        let known = scenario.cohorts.flatMap(\.kind.stateFields) + [EventTag.key]
        let requests = [file.event, file.lifecycle?.start].compactMap { $0 }
        for field in requests.flatMap(\.contentStateFields) where !known.contains(field) {
            throw ProfileError.badInput(
                "\(file.path): {{content_state.\(field)}} names no member of the scenario's content states; they have "
                    + known.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(separator: ", ")
            )
        }
    }

    /// How a service's work ended.
    public struct Done: Sendable, Equatable {
        /// Whether pushes were still missing: no push came for the settle time, so the service
        /// is ended, perhaps still behind rather than done.
        public var pushesMissing: Bool
    }

    /// Looks at the session once a tick: notes each phase it entered since the last look, in
    /// order, and says whether the service's work is done (its calls answered and their pushes
    /// in, or none for the settle time), or driving it failed; `nil` while it goes on.
    /// `cpuSeconds` reads the service's CPU now, for the phases' costs.
    public func observe(cpuSeconds: () -> Double, notice: (String) -> Void) -> Done? {
        let entered = session.phasesEntered
        for phase in entered.dropFirst(phaseNotes.seen) {
            phaseNotes.note(
                phase,
                cpu: cpuSeconds(),
                at: clock.nowNs,
                registration: session.answers.registration,
                registering: session.registrationRequest == nil
                    ? nil : fleet == nil ? "activities" : "devices' push-to-start tokens",
                notice: notice
            )
        }
        // The devices' client could not start: nothing they owe would be sent, so stop now.
        if session.reporter?.snapshot.failure != nil { return Done(pushesMissing: false) }
        var stormOver = true
        if let fleet, entered.contains(.sending) {
            let startsAnswered = session.startAnswers.sent == workload.starts.count
            let updatesDueNs = session.answers.startAtUnix.flatMap { startAt in
                workload.calls.first.map { clock.ns(ofUnix: startAt) + $0.dueMicroseconds * 1000 }
            }
            let cpu = cpuSeconds()
            stormOver = lifecycleNotes.note(
                fleet,
                startsAnswered: startsAnswered,
                updatesDueNs: updatesDueNs,
                cpu: cpu,
                at: clock.nowNs
            )
        }
        switch entered.last! {
        case .waiting, .registering, .sending:
            return nil
        case .sent:
            guard stormOver else { return nil }
            let counts = book.counts
            if counts.matched >= counts.events { return Done(pushesMissing: false) }
            let now = clock.nowNs
            // Nothing is quiet before the last push the service owes on its own clock was due.
            let quietSince = max(phaseNotes.sentAtNs ?? now, counts.lastArrivalNs ?? 0, lastOwnClockDueNs ?? 0)
            return Double(now - quietSince) / 1e9 >= settleSeconds ? Done(pushesMissing: true) : nil
        case .refused, .failed:
            return Done(pushesMissing: false)
        }
    }

    /// When the last push the service owes on its own clock fell due, on the clock; `nil`
    /// before the clock, or when it owes none.
    private var lastOwnClockDueNs: Int64? {
        guard let startAt = session.answers.startAtUnix, let lastUs = lastOwnClockDueUs else { return nil }
        return clock.ns(ofUnix: startAt) + lastUs * 1000
    }

    /// What was measured, once the service is gone and the session's thread has returned.
    /// - Throws: `ProfileError.badInput` when the service never listened: nothing was measured.
    /// `stoppedPushing`: the profile ended the service after no push came for `--settle`.
    public func outcome(cpuSeconds: Double, stoppedPushing: Bool = false) throws -> ServiceOutcome {
        let answers = session.answers
        var failure: String?
        switch session.phase {
        case .refused(let reason): throw ProfileError.badInput(reason)
        case .failed(let reason): failure = reason
        default: break
        }
        return ServiceOutcome(
            file: session.file,
            register: session.registrationRequest,
            settings: session.settings,
            registration: answers.registration,
            events: answers.events,
            workload: workload,
            calls: book.calls,
            startAtUnix: answers.startAtUnix,
            eventsCPUSeconds: phaseNotes.cpu.map { max(0, cpuSeconds - $0) },
            failure: failure,
            pushbenchFailure: session.reporter?.snapshot.failure,
            lifecycle: fleet.map { fleet in
                var lifecycle = LifecycleOutcome(
                    file: session.file,
                    starts: session.startAnswers,
                    devices: session.reporter?.snapshot ?? DeviceReporter.Answers(),
                    settings: fleet.settings,
                    serviceCPUByPhase: phaseNotes.cpu.map {
                        lifecycleNotes.cpuByPhase(from: $0, to: cpuSeconds, startCalls: !workload.starts.isEmpty)
                    },
                    fleet: fleet.snapshot,
                    workload: workload,
                    arrivals: book,
                    emulationCPUSeconds: fleet.emulationCPUSeconds
                )
                lifecycle.stoppedPushing = stoppedPushing
                return lifecycle
            }
        )
    }
}

/// What a service profile notes as each phase begins: a notice when registration begins; the
/// service's CPU and the registrations' figures when the clock starts (a second before the
/// first call), so the fan-out's cost counts from there; the moment the last call was answered.
private final class PhaseNotes {
    /// The phases noted so far.
    private(set) var seen = 1
    /// The service's CPU seconds when the clock started.
    private(set) var cpu: Double?
    /// The clock's nanoseconds when the last call was answered.
    private(set) var sentAtNs: Int64?

    func note(
        _ phase: ServiceSession.Phase,
        cpu now: @autoclosure () -> Double,
        at nowNs: Int64,
        registration: @autoclosure () -> APIAnswers,
        registering what: String?,
        notice: (String) -> Void
    ) {
        seen += 1
        switch phase {
        case .registering:
            notice("the service listens; " + (what.map { "registering its \($0)" } ?? "nothing to register first"))
        case .sending:
            cpu = now()
            let registration = registration()
            guard let what else { return notice("sending the calls; the devices report as they start") }
            notice(
                String(
                    format: "registered %d %@ in %.1f s (%.0f a second, %d failed); sending the calls",
                    registration.succeeded,
                    what,
                    registration.seconds,
                    registration.perSecond,
                    registration.sent - registration.succeeded
                )
            )
        case .sent:
            sentAtNs = nowNs
        case .waiting, .refused, .failed:
            break
        }
    }
}

/// When a lifecycle's phases ended, with the service's CPU then: the starts (every start call
/// answered, and every device of a start call reached, or no start for a
/// second since the last, or for five since the calls were answered if none came) and the
/// registration storm (every first token report answered, no device step left). The updates'
/// phase begins when the first update call is due, or when the storm is over if that is later;
/// work of one phase done in another's time counts in the other's (a late token report while the
/// updates fan out counts as updates).
private final class LifecyclePhaseNotes {
    private var startsDoneCPU: Double?
    private var stormDoneCPU: Double?
    private var updatesDueCPU: Double?
    /// When the start calls were seen all answered.
    private var answeredAtNs: Int64?

    /// Notes what ended by now; whether the storm is over, so the work may end.
    func note(
        _ fleet: DeviceFleet,
        startsAnswered: Bool,
        updatesDueNs: Int64?,
        cpu now: @autoclosure () -> Double,
        at nowNs: Int64
    ) -> Bool {
        let progress = fleet.progress
        if updatesDueCPU == nil, let updatesDueNs, nowNs >= updatesDueNs { updatesDueCPU = now() }
        if startsAnswered, answeredAtNs == nil { answeredAtNs = nowNs }
        if startsDoneCPU == nil, let answeredAtNs {
            let quietNs =
                progress.lastStartNs.map { nowNs - $0 >= 1_000_000_000 } ?? (nowNs - answeredAtNs >= 5_000_000_000)
            if progress.startPushes >= fleet.expectedStartPushes || quietNs { startsDoneCPU = now() }
        }
        if startsDoneCPU != nil, stormDoneCPU == nil, progress.reportsPending == 0, progress.actionsWaiting == 0 {
            stormDoneCPU = now()
        }
        return stormDoneCPU != nil
    }

    /// The service's CPU seconds in each phase, from `clockStart` (its CPU at the clock's start)
    /// to `end`; a phase not over by the end runs to it. Without start calls (every app starts its
    /// own activity) there is no start phase: the storm runs from the clock's start.
    func cpuByPhase(from clockStart: Double, to end: Double, startCalls: Bool) -> [String: Double] {
        let startsDone = startCalls ? startsDoneCPU ?? end : clockStart
        let stormDone = max(startsDone, min(stormDoneCPU ?? end, updatesDueCPU ?? end))
        var phases = [
            "registration_storm": max(0, stormDone - startsDone),
            "updates": max(0, end - stormDone),
        ]
        if startCalls { phases["start"] = max(0, startsDone - clockStart) }
        return phases
    }
}
