import Basics
import Foundation
import LoadEngine
import Synchronization
import Transport

/// A transport with no sockets that answers each request as a script says: how the engine's
/// phases (submit, complete, pace, drain) are tested on their own.
final class ScriptedTransport: PushTransport, @unchecked Sendable {
    /// One request as the engine handed it over.
    struct Request {
        let tag: Int
        let intendedAt: UInt64
        let path: String
        let headers: [String]
        /// 0 for the first request to this path, then 1, 2, … (retries and later pushes).
        let visit: Int
        /// Its place among every request submitted, from 0.
        let index: Int
        /// How many times `perform` had run when it was submitted: requests with the same count
        /// went out in one round.
        let round: Int
    }

    /// What the script does with one request.
    enum Answer {
        /// Answer `status` (with an APNs reason body when it is not 200) after `delay` seconds.
        case status(Int, reason: String? = nil, delay: Double = 0)
        /// Fail below HTTP.
        case fail(FailureClass)
        /// Never answer.
        case never
    }

    private let capacity: Int
    private let answersPerPerform: Int
    private var performs = 0
    private let script: (Request) -> Answer
    private var pending: [(request: Request, answer: Answer, due: UInt64)] = []
    private var visits: [String: Int] = [:]
    /// Every request submitted, in order (shared with the test, which reads it after the run).
    let submitted = Mutex<[Request]>([])

    /// `answersPerPerform` hands over at most that many due answers a `perform`: a trickle
    /// of answers, one a poll, whatever the machine's speed.
    init(slots: Int, answersPerPerform: Int = .max, script: @escaping (Request) -> Answer) {
        capacity = slots
        self.answersPerPerform = answersPerPerform
        self.script = script
    }

    var inFlight: Int { pending.count }
    var idleSlots: Int { capacity - pending.count }
    var recoveries: TransportRecoveries? { nil }
    var connectionAttempts: Int { 0 }
    var connectionsOpen: Int? { nil }

    func submit(
        tag: Int,
        intendedAt: UInt64,
        path: [UInt8],
        apnsID: (high: UInt64, low: UInt64),
        headers: HeaderBlock,
        body: [UInt8]
    ) throws(TransportError) {
        let path = String(decoding: path, as: UTF8.self)
        let request = Request(
            tag: tag,
            intendedAt: intendedAt,
            path: path,
            headers: headers.lines,
            visit: visits[path, default: 0],
            index: submitted.withLock { $0.count },
            round: performs
        )
        visits[path, default: 0] += 1
        submitted.withLock { $0.append(request) }
        let answer = script(request)
        var delay = 0.0
        if case .status(_, _, let seconds) = answer { delay = seconds }
        pending.append((request, answer, monotonicNanos() + UInt64(delay * 1e9)))
    }

    func perform(onCompletion: (PushCompletion) -> Void) {
        let now = monotonicNanos()
        performs += 1
        let due = pending.filter { entry in
            if case .never = entry.answer { return false }
            return entry.due <= now
        }.prefix(answersPerPerform)
        pending.removeAll { entry in due.contains { $0.request.tag == entry.request.tag } }
        for entry in due {
            let outcome: TransferOutcome
            switch entry.answer {
            case .status(let status, let reason, _):
                outcome = .response(status: status, body: reason.map { Array("{\"reason\":\"\($0)\"}".utf8) } ?? [])
            case .fail(let kind):
                outcome = .failed(kind, message: "scripted \(kind.rawValue)")
            case .never:
                continue
            }
            onCompletion(
                PushCompletion(
                    tag: entry.request.tag,
                    intendedAt: entry.request.intendedAt,
                    outcome: outcome,
                    apnsIDEchoed: true,
                    localPort: 1
                )
            )
        }
    }

    /// Requests taken back by `abandonInFlight`, answered as failed at the next `perform`.
    private(set) var abandonedCount = 0

    func abandonInFlight(_ kind: FailureClass, message: String) {
        abandonedCount += pending.count
        pending = pending.map { ($0.request, .fail(kind), 0) }
    }

    /// Sleeps until the next scripted answer is due, `timeoutNanos`, or 1 ms, whichever is first,
    /// as a poll would wake for an answer.
    func wait(timeoutNanos: UInt64) {
        let now = monotonicNanos()
        let nextDue = pending.lazy.filter { if case .never = $0.answer { false } else { true } }.map(\.due).min()
        let untilDue = nextDue.map { $0 > now ? $0 - now : 0 } ?? .max
        usleep(UInt32(min(timeoutNanos, untilDue, 1_000_000) / 1000))
    }
}
