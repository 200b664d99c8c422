import ArrivalMatching
import Basics
import DeviceEmulation
import Foundation
import RequestFiles
import Synchronization
import Transport

/// Drives a sender service through its API on a thread of its own, as its apps and backend
/// would: waits until it listens, registers every activity (closed loop, `concurrency` at a
/// time, at most `rate` a second), then sends the calls open loop on their schedule.
///
/// With a lifecycle file the devices report their push-to-start tokens in place of the
/// registrations, the operator's start calls join the calls, and the devices' reporter
/// (`DeviceReporter`) starts with the clock.
///
/// `profile`'s watch loop reads the phases entered (each entered when it begins, none skipped)
/// and ends the service once the calls are answered and their pushes are in; every wait here
/// is bounded by a deadline or the stop flag.
public final class ServiceSession: Sendable {
    /// Between the last registration's answer and the first call.
    static let lead: Duration = .seconds(1)

    /// How the service is driven.
    public struct Settings: Sendable {
        /// Registrations in flight at once, and at most this many a second when set.
        public var registerConcurrency = 16
        public var registerRate: Double?
        /// Each request's deadline, and its connection's.
        public var timeout: Duration = .seconds(10)
        public var connectTimeout: Duration = .seconds(5)
        /// How long the service may take to listen after it starts.
        public var serviceWait: Duration = .seconds(30)
        /// Whether a group's calls (an activity's, with `per: activity`) may be in flight at
        /// once. A feed sends them one after another, each after the previous one's answer, so
        /// by default a call waits for its predecessor: two calls due at once could otherwise
        /// reach the service in either order (a late "live" after the final whistle).
        public var concurrentCalls = false
        /// Connections, and requests in flight, of the operator's client and of the devices'
        /// (`--api-connections`); `nil` sizes each to the load that falls due.
        public var apiConnections: Int?
        /// The process's open-file limit: each of PushBench's clients opens at most a quarter
        /// of it, the rest being the mock's and the service's.
        public var openFiles = 1024

        /// The defaults.
        public init() {}

        /// The most connections a client opens unless fixed: loopback has about 28,000
        /// ephemeral ports to one address, and the service's other clients need theirs.
        public static let connectionCeiling = 8192

        /// The connections for a client that may have up to `peak` requests in flight: enough
        /// that none waits for one, up to a quarter of the open files (and
        /// `connectionCeiling`), unless fixed.
        public func connections(forPeak peak: Int) -> Int {
            apiConnections ?? max(1, min(peak, openFiles / 4, Self.connectionCeiling))
        }

        /// The most of `dueMicroseconds` (sorted) that fall within one deadline of each other:
        /// the most requests that can be in flight at once, whatever the service's latency, since
        /// none is in flight past its deadline.
        public func peakInFlight(dueMicroseconds: [Int64]) -> Int {
            let windowUs = timeout.inNanoseconds / 1000
            var first = 0
            var peak = 0
            for (last, due) in dueMicroseconds.enumerated() {
                while UInt64(due - dueMicroseconds[first]) >= windowUs { first += 1 }
                peak = max(peak, last - first + 1)
            }
            return peak
        }
    }

    /// Where the session is.
    public enum Phase: Sendable, Equatable {
        /// Until the service accepts connections at every URL of the file.
        case waiting
        /// Registering every activity, before the clock starts.
        case registering
        /// From the clock's start (`lead` before the first call) until the last call is answered.
        case sending
        /// Every call was sent and answered (or timed out).
        case sent
        /// The service never listened: nothing was measured.
        case refused(String)
        /// Driving it failed: no registration succeeded, or libcurl could not start.
        case failed(String)
    }

    private struct State {
        /// Every phase entered, in order: a reader that looks less often than they change still
        /// sees each one.
        var entered = [Phase.waiting]
        var registration = APIAnswers()
        var events = APIAnswers()
        var starts = APIAnswers()
        var startAtUnix: Double?
    }

    public let file: APIFile
    /// The request each activity is registered with before the clock: `register`, or a
    /// lifecycle's `start_token` (none when its devices have none to report).
    public let registrationRequest: APIFile.Request?
    /// The devices' reporter, for a lifecycle.
    public let reporter: DeviceReporter?
    public let workload: ServiceWorkload
    public let settings: Settings
    private let book: ArrivalBook
    private let clock: ProfileClock
    private let state = Mutex(State())
    private let stopFlag = Atomic<Bool>(false)
    /// Whether the driving thread was started, and signalled when it has returned.
    private let started = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)

    /// A session for `workload`, booking its pushes' schedule in `book` once the clock starts;
    /// the calls' times are read from `clock`, the book's.
    /// With `reporter`, the devices' side of a lifecycle is played too.
    public init(
        file: APIFile,
        workload: ServiceWorkload,
        settings: Settings,
        book: ArrivalBook,
        clock: ProfileClock,
        reporter: DeviceReporter? = nil
    ) {
        // A lifecycle's devices report push-to-start tokens only when a start call will use them.
        registrationRequest =
            file.lifecycle == nil ? file.register : workload.starts.isEmpty ? nil : file.lifecycle?.startToken
        self.reporter = reporter
        self.file = file
        self.workload = workload
        self.settings = settings
        self.book = book
        self.clock = clock
    }

    /// Starts driving the service on a new thread.
    public func start() {
        started.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            drive()
            ended.signal()
        }
        thread.name = "pb-service-api"
        thread.start()
    }

    /// Asks the session to stop at its next step (within a few milliseconds).
    public func stop() { stopFlag.store(true, ordering: .relaxed) }

    /// Stops the session and waits until its thread has returned, so that its answers are final
    /// when read. Bounded: every step of the thread checks the stop flag within 200 ms.
    public func stopAndJoin() {
        stop()
        if started.load(ordering: .relaxed) { ended.wait() }
        reporter?.stopAndJoin()
    }

    /// The phase now.
    public var phase: Phase { state.withLock { $0.entered.last! } }

    /// Every phase entered so far, in order, from `.waiting`.
    public var phasesEntered: [Phase] { state.withLock { $0.entered } }

    private func enter(_ phase: Phase) { state.withLock { $0.entered.append(phase) } }

    /// The answers of both phases, and UNIX seconds of the first call's intended time.
    public var answers: (registration: APIAnswers, events: APIAnswers, startAtUnix: Double?) {
        state.withLock { ($0.registration, $0.events, $0.startAtUnix) }
    }

    /// What the operator's start calls were answered.
    public var startAnswers: APIAnswers { state.withLock { $0.starts } }

    private var stopped: Bool { stopFlag.load(ordering: .relaxed) }

    private func drive() {
        if let refusal = waitForService() {
            enter(.refused(refusal))
            return
        }
        enter(.registering)
        do {
            try register()
            guard !stopped else { return }
            let registration = answers.registration
            if let registrationRequest, registration.succeeded == 0 {
                let cause = registration.firstFailure ?? "statuses \(registration.byStatus.keys.sorted())"
                enter(.failed("\(file.path):\(registrationRequest.urlLine ?? 0): no registration succeeded (\(cause))"))
                return
            }
            enter(.sending)
            try sendCalls()
        } catch {
            enter(.failed("\(error)"))
            return
        }
        enter(.sent)
    }

    /// Waits until every endpoint the file names accepts a connection; the refusal otherwise.
    private func waitForService() -> String? {
        let deadline = monotonicNanos() + settings.serviceWait.inNanoseconds
        let lifecycle = file.lifecycle
        let requests = [registrationRequest, file.event, lifecycle?.start, lifecycle?.tokenReport, lifecycle?.close]
        for request in requests.compactMap({ $0 }) {
            let url = request.request(tag: .registration(0), intendedNanos: 0) { _ in .integer(0) }.url
            guard let endpoint = APIFile.endpoint(of: url) else {
                return "\(file.path):\(request.urlLine ?? 0): \(request.urlText) names no host"
            }
            while !PortProbe.accepts(host: endpoint.host, port: endpoint.port, timeoutMs: 200) {
                if stopped { return "stopped before the service listened" }
                if monotonicNanos() >= deadline {
                    return "\(file.path):\(request.urlLine ?? 0): \(request.urlText) accepted no connection in "
                        + String(format: "%.0f s", settings.serviceWait.inSeconds)
                        + " (is the service listening on \(endpoint.host):\(endpoint.port)?)"
                }
                usleep(100_000)
            }
        }
        return nil
    }

    /// Registers every activity, `registerConcurrency` at a time: with `register`, or for a
    /// lifecycle each push-to-start device's token with `start_token`.
    private func register() throws {
        guard let registrationRequest else { return }
        let client = try ServiceClient(
            timeout: settings.timeout,
            connectTimeout: settings.connectTimeout,
            connections: settings.registerConcurrency,
            http2PriorKnowledge: file.http2,
            caFile: file.caFile,
            insecure: file.insecure
        )
        let fleet = reporter?.fleet
        let devices =
            fleet.map { $0.workload.starts.flatMap { Array($0.activities) } } ?? Array(0..<workload.activities)
        let began = monotonicNanos()
        let cpuBegan = threadCPUNanos()
        var next = 0
        // Devices reporting their push-to-start tokens are the devices' own steps: the
        // emulation's CPU and events, as the reporter's token reports are.
        defer { fleet?.addRegistrations(next, cpuNanoseconds: threadCPUNanos() - cpuBegan) }
        while (next < devices.count || client.unanswered > 0) && !stopped {
            while next < devices.count, client.unanswered < settings.registerConcurrency {
                var intended = monotonicNanos()
                if let rate = settings.registerRate {
                    let due = began + UInt64(Double(next) / rate * 1e9)
                    if due > intended { break }
                    intended = due
                }
                let activity = devices[next]
                let request =
                    fleet.flatMap {
                        file.deviceRequest(
                            .startToken(activity: activity, reissued: false),
                            of: $0,
                            intendedNanos: intended
                        )
                    }
                    ?? APIFile.registration(
                        of: activity,
                        with: registrationRequest,
                        in: workload,
                        intendedNanos: intended
                    )
                next += 1
                client.submit(request)
            }
            for answer in client.perform(waitMs: 2) { book(answer, registration: true) }
        }
        let seconds = Double(monotonicNanos() - began) / 1e9
        state.withLock { $0.registration.seconds = seconds }
    }

    /// One of the operator's calls: an event call, or (`isStart`) a lifecycle's start call.
    private struct OperatorCall {
        var dueMicroseconds: Int64
        var index: Int
        var isStart: Bool
        /// The feed it belongs to, whose calls go out one after another.
        var feed: Feed
    }

    /// What a feed sends in order: one group's calls, or with `per: activity` one activity's.
    private enum Feed: Hashable {
        case group(Int)
        case activity(Int)
    }

    /// The operator's calls in the order they fall due, starts before events due with them.
    private var operatorCalls: [OperatorCall] {
        let starts = workload.starts.enumerated().map {
            OperatorCall(dueMicroseconds: $1.dueMicroseconds, index: $0, isStart: true, feed: .group($1.group))
        }
        let events = workload.calls.enumerated().filter { !$0.element.ownClock }.map { index, call in
            OperatorCall(
                dueMicroseconds: call.dueMicroseconds,
                index: index,
                isStart: false,
                feed: workload.perActivity ? .activity(call.activities.lowerBound) : .group(call.group)
            )
        }
        return (starts + events).enumerated().sorted {
            ($0.element.dueMicroseconds, $0.offset) < ($1.element.dueMicroseconds, $1.offset)
        }.map(\.element)
    }

    /// The request of `call`, whose time counts from `startAt`.
    private func request(of call: OperatorCall, startAt: Double, intended: UInt64) -> ServiceClient.Request {
        if call.isStart, let start = file.lifecycle?.start {
            return file.startRequest(
                start,
                call: call.index,
                in: workload,
                startAtUnix: startAt,
                intendedNanos: intended
            )
        }
        return file.eventRequest(call: call.index, in: workload, startAtUnix: startAt, intendedNanos: intended)
    }

    /// Sends each call at its intended time, whatever else is in flight (open loop), except
    /// that a call whose feed has one in flight waits for its answer unless `concurrentCalls`;
    /// its latency still counts from its intended time. The client has a connection for every
    /// call that can be in flight at once (`Settings.peakInFlight`), unless fixed or short of
    /// open files; a call that waited for one waited in PushBench, and is measured so.
    private func sendCalls() throws {
        let calls = operatorCalls
        let client = try ServiceClient(
            timeout: settings.timeout,
            connectTimeout: settings.connectTimeout,
            connections: settings.connections(
                forPeak: settings.peakInFlight(dueMicroseconds: calls.map(\.dueMicroseconds))
            ),
            http2PriorKnowledge: file.http2,
            caFile: file.caFile,
            insecure: file.insecure
        )
        client.onHandOver = { [book] tag, nanos in
            if case .call(let index) = RequestTag(rawValue: tag) { book.sent(call: index, atNs: Int64(nanos)) }
        }
        defer { record(client, in: [\.events, \.starts]) }
        let startNanos = monotonicNanos() + Self.lead.inNanoseconds
        let startAt = clock.unix(ofNs: Int64(startNanos))
        book.start(atNs: Int64(startNanos))
        // What the service sends on its own clock is owed from its moment to each token it knew.
        for (index, call) in workload.calls.enumerated() where call.ownClock {
            book.sent(call: index, atNs: Int64(startNanos) + call.dueMicroseconds * 1000)
        }
        reporter?.start(atNs: Int64(startNanos), unix: startAt)
        state.withLock { $0.startAtUnix = startAt }
        var next = 0
        var queue = CallQueue()
        while (next < calls.count || !queue.isEmpty || client.unanswered > 0) && !stopped {
            let now = monotonicNanos()
            while next < calls.count, startNanos + UInt64(calls[next].dueMicroseconds * 1000) <= now {
                queue.due.append(calls[next])
                next += 1
            }
            for call in queue.takeSendable(inOrder: !settings.concurrentCalls) {
                let intended = startNanos + UInt64(call.dueMicroseconds * 1000)
                client.submit(request(of: call, startAt: startAt, intended: intended))
            }
            // Until the next call is due or a queued one's deadline, woken by an answer; a stop is
            // seen within the cap.
            let due = next < calls.count ? startNanos + UInt64(calls[next].dueMicroseconds * 1000) : nil
            for answer in client.perform(waitMs: client.waitMs(until: due, cap: Self.idleWaitMs)) {
                queue.answered(tag: answer.tag)
                book(answer, registration: false)
            }
        }
        let seconds = Double(monotonicNanos() - min(startNanos, monotonicNanos())) / 1e9
        state.withLock { $0.events.seconds = seconds }
    }

    /// The longest the calls' and the devices' threads sleep with nothing due: how soon they see
    /// a stop, at a few wake-ups a second.
    static let idleWaitMs = 200

    /// The calls due and not yet sent, and the feeds with a call in flight.
    private struct CallQueue {
        var due: [OperatorCall] = []
        private var inFlight: [Int: Feed] = [:]
        private var busy: Set<Feed> = []

        var isEmpty: Bool { due.isEmpty }

        /// The due calls that may go now, in the order they fell due, taken: all of them, or
        /// (`inOrder`) those whose feed has no call in flight, the first of each feed only.
        mutating func takeSendable(inOrder: Bool) -> [OperatorCall] {
            var sendable: [OperatorCall] = []
            var held: [OperatorCall] = []
            for call in due {
                if inOrder, busy.contains(call.feed) {
                    held.append(call)
                    continue
                }
                if inOrder { busy.insert(call.feed) }
                inFlight[(call.isStart ? RequestTag.start(call.index) : .call(call.index)).rawValue] = call.feed
                sendable.append(call)
            }
            due = held
            return sendable
        }

        /// The call of request tag `tag` was answered (or failed): its feed may send its next.
        mutating func answered(tag: Int) {
            if let feed = inFlight.removeValue(forKey: tag) { busy.remove(feed) }
        }
    }

    /// Keeps what `client` saw of its own limits in the answers at `phase`.
    private func record(_ client: ServiceClient, in phases: [WritableKeyPath<State, APIAnswers>]) {
        state.withLock { state in
            for phase in phases { state[keyPath: phase].recordLimits(of: client) }
        }
    }

    private func book(_ answer: ServiceClient.Answer, registration: Bool) {
        state.withLock { state in
            if registration, let registrationRequest {
                state.registration.add(answer, request: registrationRequest)
            } else if case .start = RequestTag(rawValue: answer.tag), let start = file.lifecycle?.start {
                state.starts.add(answer, request: start)
            } else if let event = file.event {
                state.events.add(answer, request: event)
            }
        }
    }
}
