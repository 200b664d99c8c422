import Foundation
import Transport
import Workload

/// A service profile's moving parts while it runs: the session driving the API, the books its
/// pushes are matched in, and when the work is done.
struct ServiceWork {
    let workload: ServiceWorkload
    let book: LagBook
    let fanout: FanoutBook
    let session: ServiceSession
    private let settleSeconds: Double
    /// The moments noted once each: registration began, the clock started (with the service's
    /// CPU then), the last call was answered.
    private let phaseNotes = PhaseNotes()

    init(_ api: SenderProfiler.ServiceAPI, scenario: Scenario, requests: Int?, timing: EventTiming) throws {
        workload = try ServiceWorkload(
            scenario: scenario,
            perActivity: api.file.perActivity,
            requests: requests,
            timing: timing
        )
        book = LagBook(schedule: workload.schedule, startNs: 0)
        fanout = FanoutBook(workload: workload)
        session = ServiceSession(file: api.file, workload: workload, settings: api.settings, book: book, fanout: fanout)
        settleSeconds = api.settle.inSeconds
    }

    /// Looks at the session once a tick: notes each phase it entered since the last look, in
    /// order, and says whether the service's work is done (its calls answered and their pushes
    /// in, or none for the settle time), or driving it failed.
    func observe(_ watch: inout ProfileWatch, notice: (String) -> Void) -> Bool {
        let entered = session.phasesEntered
        for phase in entered.dropFirst(phaseNotes.seen) {
            phaseNotes.note(
                phase,
                cpu: watch.cpuSecondsNow(),
                registration: session.answers.registration,
                notice: notice
            )
        }
        switch entered.last! {
        case .waiting, .registering, .sending:
            return false
        case .sent:
            if fanout.complete { return true }
            let now = Date().timeIntervalSince1970
            let lastArrival = Double(fanout.progress.lastArrivalNs) / 1e9
            return now - max(phaseNotes.sentAt ?? now, lastArrival) >= settleSeconds
        case .refused, .failed:
            return true
        }
    }

    /// What was measured, once the service is gone.
    /// - Throws: `ProfileError.badInput` when the service never listened: nothing was measured.
    func outcome(cpuSeconds: Double) throws -> ServiceOutcome {
        let answers = session.answers
        var failure: String?
        switch session.phase {
        case .refused(let reason): throw ProfileError.badInput(reason)
        case .failed(let reason): failure = reason
        default: break
        }
        return ServiceOutcome(
            file: session.file,
            settings: session.settings,
            registration: answers.registration,
            events: answers.events,
            book: fanout,
            startAtUnix: answers.startAtUnix,
            eventsCPUSeconds: phaseNotes.cpu.map { max(0, cpuSeconds - $0) },
            failure: failure
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
    /// UNIX seconds when the last call was answered.
    private(set) var sentAt: Double?

    func note(
        _ phase: ServiceSession.Phase,
        cpu now: @autoclosure () -> Double,
        registration: @autoclosure () -> APIAnswers,
        notice: (String) -> Void
    ) {
        seen += 1
        switch phase {
        case .registering:
            notice("the service listens; registering its activities")
        case .sending:
            cpu = now()
            let registration = registration()
            notice(
                String(
                    format: "registered %d activities in %.1f s (%.0f a second, %d failed); sending the calls",
                    registration.succeeded,
                    registration.seconds,
                    registration.perSecond,
                    registration.sent - registration.succeeded
                )
            )
        case .sent:
            sentAt = Date().timeIntervalSince1970
        case .waiting, .refused, .failed:
            break
        }
    }
}
