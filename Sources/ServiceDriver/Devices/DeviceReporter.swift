import ArrivalMatching
import Basics
import DeviceEmulation
import Foundation
import RequestFiles
import Synchronization
import Transport

/// The devices' side of the service's API, on a thread of its own: from the clock's start it
/// takes each device action as it falls due (`DeviceFleet.takeDue`) and sends its request
/// (token reports, closes, re-issued push-to-start tokens) open loop, each timed from its
/// intended moment, so a stalled service shows as latency and timeouts, not as fewer reports.
///
/// Its thread's CPU is PushBench's, not the service's: it is added to the fleet's own
/// (`DeviceFleet.emulationCPU`) and kept apart from every figure of the service.
public final class DeviceReporter: Sendable {
    /// What the service answered the devices.
    public struct Answers: Sendable {
        /// Token reports (first and after rotations), closes, re-issued push-to-start tokens.
        public var tokenReports = APIAnswers()
        public var closes = APIAnswers()
        public var startTokens = APIAnswers()
        /// Token reports offered in each second after the clock's start (by their intended
        /// moment): the storm as the devices made it; and answered in each second (by the
        /// answer's moment, timeouts and failures apart): the storm as the service got through it.
        public var reportsPerSecond: [Int] = []
        public var reportsAnsweredPerSecond: [Int] = []
        /// When each phase's first request was due: its seconds count from there.
        fileprivate var began: [Phase: Int64] = [:]
        /// Why the devices' client could not start: the profile stops, as nothing the devices
        /// should have sent was sent.
        public var failure: String?
    }

    let file: APIFile
    let fleet: DeviceFleet
    /// The book the service's pushes are matched in: told when the service learned a token.
    let arrivals: ArrivalBook
    let settings: ServiceSession.Settings
    private let answers = Mutex(Answers())
    private let stopFlag = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)

    /// A reporter for `fleet`'s devices, sending `file`'s device requests as `settings` says,
    /// and telling `arrivals` which tokens the service learned when.
    public init(file: APIFile, fleet: DeviceFleet, arrivals: ArrivalBook, settings: ServiceSession.Settings) {
        self.file = file
        self.fleet = fleet
        self.arrivals = arrivals
        self.settings = settings
    }

    /// Starts the devices at `startNs` (the clock's 0, UNIX seconds `startAtUnix`) and the
    /// thread that sends their requests.
    public func start(atNs startNs: Int64, unix startAtUnix: Double) {
        fleet.start(atNs: startNs)
        started.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            let cpuBegan = threadCPUNanos()
            run(startNs: startNs, startAtUnix: startAtUnix)
            fleet.addEmulationCPU(nanoseconds: threadCPUNanos() - cpuBegan)
            ended.signal()
        }
        thread.name = "pb-devices"
        thread.start()
    }

    /// Stops the thread and waits for it (bounded: it checks the flag every 5 ms).
    public func stopAndJoin() {
        stopFlag.store(true, ordering: .relaxed)
        if started.load(ordering: .relaxed) { ended.wait() }
    }

    /// The answers so far.
    public var snapshot: Answers { answers.withLock { $0 } }

    private func run(startNs: Int64, startAtUnix: Double) {
        // Phones are many, and each reports on its own: the client has a connection for as many
        // requests as there are devices, up to its share of open files (or --api-connections).
        let client: ServiceClient
        do {
            client = try ServiceClient(
                timeout: settings.timeout,
                connectTimeout: settings.connectTimeout,
                connections: settings.connections(forPeak: fleet.workload.activities),
                http2PriorKnowledge: file.http2,
                caFile: file.caFile,
                insecure: file.insecure
            )
        } catch {
            answers.withLock { $0.failure = "the devices' client could not start: \(error)" }
            return
        }
        defer { answers.withLock { $0.recordLimits(of: client) } }
        // Sleeps until its next action is due; a start's report, scheduled ahead of it, wakes it.
        let waker = client.waker
        fleet.onSoonerAction { waker.wake() }
        defer { fleet.onSoonerAction(nil) }
        client.onHandOver = { [fleet] tag, _ in
            if case .device(let request) = RequestTag(rawValue: tag) { fleet.handedOver(request) }
        }
        while !stopFlag.load(ordering: .relaxed) {
            for (request, dueNs) in fleet.takeDue(nowNs: Int64(monotonicNanos())) {
                guard
                    let rendered = file.deviceRequest(
                        request,
                        of: fleet,
                        startAtUnix: startAtUnix,
                        intendedNanos: UInt64(dueNs)
                    )
                else { continue }
                if case .tokenReport = request {
                    count(atSecond: Int((dueNs - startNs) / 1_000_000_000), in: \.reportsPerSecond)
                }
                client.submit(rendered)
            }
            // At least a millisecond: an action due sooner waits for it (its latency counts from its
            // intended moment), rather than the thread spinning on the clock.
            let next = fleet.nextActionNs.map { UInt64(max(0, $0)) }
            let waitMs = max(1, client.waitMs(until: next, cap: ServiceSession.idleWaitMs))
            for answer in client.perform(waitMs: waitMs) { book(answer, startNs: startNs) }
        }
    }

    /// Counts a token report in `second` after the clock's start, in the series `series`.
    private func count(atSecond second: Int, in series: WritableKeyPath<Answers, [Int]>) {
        answers.withLock { answers in
            let index = max(0, second)
            while answers[keyPath: series].count <= index { answers[keyPath: series].append(0) }
            answers[keyPath: series][index] += 1
        }
    }

    private func book(_ answer: ServiceClient.Answer, startNs: Int64) {
        guard case .device(let request) = RequestTag(rawValue: answer.tag) else { return }
        guard let template = file.lifecycle?.template(for: request) else { return }
        let succeeded = answer.failure == nil && !answer.timedOut && template.succeeded(answer.status)
        let nowNs = Int64(monotonicNanos())
        if answer.sent {
            fleet.answered(request, succeeded: succeeded, atNs: nowNs)
        } else {
            fleet.abandoned(request)
        }
        if succeeded, case .tokenReport(let activity, _) = request {
            arrivals.learned(token: fleet.workload.updateToken(of: activity), atNs: nowNs)
        }
        let intendedNs = nowNs - Int64(answer.latencyNanos)
        if case .tokenReport = request, answer.status > 0 {
            count(atSecond: Int((nowNs - startNs) / 1_000_000_000), in: \.reportsAnsweredPerSecond)
        }
        let phase = Answers.Phase(request)
        answers.withLock { answers in
            let began = min(answers.began[phase] ?? intendedNs, intendedNs)
            answers.began[phase] = began
            answers[keyPath: phase.answers].add(answer, request: template)
            answers[keyPath: phase.answers].seconds = Double(nowNs - began) / 1e9
        }
    }
}

extension DeviceReporter.Answers {
    /// Keeps the client's limits in every phase's answers.
    fileprivate mutating func recordLimits(of client: ServiceClient) {
        tokenReports.recordLimits(of: client)
        closes.recordLimits(of: client)
        startTokens.recordLimits(of: client)
    }

    /// The answers a device request is booked in.
    fileprivate enum Phase: Hashable, Sendable {
        case tokenReports, closes, startTokens

        init(_ request: DeviceFleet.DeviceRequest) {
            switch request {
            case .tokenReport: self = .tokenReports
            case .close: self = .closes
            case .startToken: self = .startTokens
            }
        }

        var answers: WritableKeyPath<DeviceReporter.Answers, APIAnswers> {
            switch self {
            case .tokenReports: \.tokenReports
            case .closes: \.closes
            case .startTokens: \.startTokens
            }
        }
    }
}
