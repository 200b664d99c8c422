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

    /// Looks at the session once a tick: notes the phases as they begin, and says whether the
    /// service's work is done (its calls answered and their pushes in, or none for the settle
    /// time), or driving it failed.
    func observe(_ watch: inout ProfileWatch, notice: (String) -> Void) -> Bool {
        switch session.phase {
        case .waiting:
            return false
        case .registering:
            phaseNotes.noteRegistering(notice: notice)
            return false
        case .sending:
            phaseNotes.noteSending(
                cpu: watch.cpuSecondsNow(),
                registration: session.answers.registration,
                notice: notice
            )
            return false
        case .sent:
            phaseNotes.noteSending(
                cpu: watch.cpuSecondsNow(),
                registration: session.answers.registration,
                notice: notice
            )
            if fanout.complete { return true }
            let now = Date().timeIntervalSince1970
            let sentAt = phaseNotes.noteSent(at: now)
            let lastArrival = Double(fanout.progress.lastArrivalNs) / 1e9
            return now - max(sentAt, lastArrival) >= settleSeconds
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
            eventsCPUSeconds: phaseNotes.cpu.map { max(0, cpuSeconds - $0) } ?? 0,
            failure: failure
        )
    }
}

/// The moments a service profile notes once each: registration began, the clock started (and
/// the service's CPU then), the last call was answered.
private final class PhaseNotes {
    private(set) var cpu: Double?
    private var registering = false
    private var sentAt: Double?

    func noteRegistering(notice: (String) -> Void) {
        guard !registering else { return }
        registering = true
        notice("the service listens; registering its activities")
    }

    /// Notes the clock's start once: the CPU then, read only the first time.
    func noteSending(
        cpu now: @autoclosure () -> Double,
        registration: @autoclosure () -> APIAnswers,
        notice: (String) -> Void
    ) {
        guard cpu == nil else { return }
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
    }

    func noteSent(at now: Double) -> Double {
        if let sentAt { return sentAt }
        sentAt = now
        return now
    }
}
