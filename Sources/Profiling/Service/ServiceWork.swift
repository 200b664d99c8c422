import Foundation
import Transport
import Workload

/// A service profile's moving parts while it runs: the session driving the API, the book its
/// pushes are matched in, and when the work is done.
struct ServiceWork {
    let workload: ServiceWorkload
    let book: ArrivalBook
    let session: ServiceSession
    private let clock: ProfileClock
    private let settleSeconds: Double
    /// The moments noted once each: registration began, the clock started (with the service's
    /// CPU then), the last call was answered.
    private let phaseNotes = PhaseNotes()

    init(
        _ api: SenderProfiler.ServiceAPI,
        scenario: Scenario,
        requests: Int?,
        timing: EventTiming,
        clock: ProfileClock
    ) throws {
        workload = try ServiceWorkload(
            scenario: scenario,
            perActivity: api.file.perActivity,
            requests: requests,
            timing: timing
        )
        book = workload.arrivalBook()
        session = try ServiceSession(
            file: api.file,
            workload: workload,
            settings: api.settings,
            book: book,
            clock: clock
        )
        settleSeconds = api.settle.inSeconds
        self.clock = clock
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
                at: clock.nowNs,
                registration: session.answers.registration,
                notice: notice
            )
        }
        switch entered.last! {
        case .waiting, .registering, .sending:
            return false
        case .sent:
            let counts = book.counts
            if counts.matched == workload.expectedPushes { return true }
            let now = clock.nowNs
            let quietSince = max(phaseNotes.sentAtNs ?? now, counts.lastArrivalNs ?? 0)
            return Double(now - quietSince) / 1e9 >= settleSeconds
        case .refused, .failed:
            return true
        }
    }

    /// What was measured, once the service is gone and the session's thread has returned.
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
            register: session.registrationRequest,
            settings: session.settings,
            registration: answers.registration,
            events: answers.events,
            workload: workload,
            calls: book.calls,
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
    /// The clock's nanoseconds when the last call was answered.
    private(set) var sentAtNs: Int64?

    func note(
        _ phase: ServiceSession.Phase,
        cpu now: @autoclosure () -> Double,
        at nowNs: Int64,
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
            sentAtNs = nowNs
        case .waiting, .refused, .failed:
            break
        }
    }
}
