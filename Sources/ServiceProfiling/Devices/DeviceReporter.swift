import Foundation
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
    /// Connections to the service's device endpoints: phones are many, so many at once.
    static let connections = 64
    /// Requests handed to libcurl at once: one a connection (HTTP/1.1 carries one at a time).
    static let inFlightLimit = connections

    /// What the service answered the devices.
    public struct Answers: Sendable {
        /// Token reports (first and after rotations), closes, re-issued push-to-start tokens.
        public var tokenReports = APIAnswers()
        public var closes = APIAnswers()
        public var startTokens = APIAnswers()
        /// Token reports sent in each second after the clock's start: the storm's shape.
        public var reportsPerSecond: [Int] = []
        /// When each kind's first request was due: its phase's seconds count from there.
        fileprivate var began: [Int: Int64] = [:]
    }

    let file: APIFile
    let fleet: DeviceFleet
    let settings: ServiceSession.Settings
    private let answers = Mutex(Answers())
    private let stopFlag = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)

    /// A reporter for `fleet`'s devices, sending `file`'s device requests as `settings` says.
    public init(file: APIFile, fleet: DeviceFleet, settings: ServiceSession.Settings) {
        self.file = file
        self.fleet = fleet
        self.settings = settings
    }

    /// Starts the devices at `startNs` (the clock's 0) and the thread that sends their requests.
    public func start(atNs startNs: Int64) {
        fleet.start(atNs: startNs)
        started.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            let cpuBegan = threadCPUNanos()
            run(startNs: startNs)
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

    private func run(startNs: Int64) {
        guard
            let client = try? ServiceClient(
                timeout: settings.timeout,
                connectTimeout: settings.connectTimeout,
                connections: Self.connections,
                caFile: file.caFile,
                insecure: file.insecure
            )
        else { return }
        // Requests due but not yet handed to libcurl: it is handed at most `inFlightLimit` at a
        // time (it would queue the rest itself, but scan them all on every step). Each keeps its
        // intended moment, so waiting here shows in its latency.
        var backlog: [(request: DeviceFleet.DeviceRequest, dueNs: Int64)] = []
        var head = 0
        while !stopFlag.load(ordering: .relaxed) {
            backlog += fleet.takeDue(nowNs: Int64(monotonicNanos()))
            while head < backlog.count, client.inFlight < Self.inFlightLimit {
                let (request, dueNs) = backlog[head]
                head += 1
                guard let rendered = file.deviceRequest(request, of: fleet, intendedNanos: UInt64(dueNs)) else {
                    continue
                }
                if case .tokenReport = request { countReport(atSecond: Int((dueNs - startNs) / 1_000_000_000)) }
                if let refused = client.submit(rendered) { book(refused) }
            }
            if head == backlog.count {
                backlog.removeAll(keepingCapacity: true)
                head = 0
            }
            let untilNext = fleet.nextActionNs.map { Int(($0 - Int64(monotonicNanos())) / 1_000_000) } ?? 5
            // At least a millisecond: an action due sooner waits for it (its latency counts from its
            // intended moment), rather than the thread spinning on the clock.
            let waitMs = max(1, min(5, untilNext))
            for answer in client.perform(waitMs: waitMs) { book(answer) }
        }
    }

    private func countReport(atSecond second: Int) {
        answers.withLock { answers in
            let index = max(0, second)
            while answers.reportsPerSecond.count <= index { answers.reportsPerSecond.append(0) }
            answers.reportsPerSecond[index] += 1
        }
    }

    private func book(_ answer: ServiceClient.Answer) {
        let request = DeviceRequestTag(rawValue: answer.tag).request
        guard let template = file.lifecycle?.template(for: request) else { return }
        let succeeded = answer.failure == nil && !answer.timedOut && template.succeeded(answer.status)
        let nowNs = Int64(monotonicNanos())
        fleet.answered(request, succeeded: succeeded, atNs: nowNs)
        let intendedNs = nowNs - Int64(answer.latencyNanos)
        answers.withLock { answers in
            let kind = answers.kind(of: request)
            let began = min(answers.began[kind] ?? intendedNs, intendedNs)
            answers.began[kind] = began
            answers[phase: kind].add(answer, request: template)
            answers[phase: kind].seconds = Double(nowNs - began) / 1e9
        }
    }
}

/// The calling thread's CPU time, nanoseconds.
func threadCPUNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

extension DeviceReporter.Answers {
    /// The phase a device request belongs to: 0 token reports, 1 closes, 2 push-to-start tokens.
    fileprivate func kind(of request: DeviceFleet.DeviceRequest) -> Int {
        switch request {
        case .tokenReport: 0
        case .close: 1
        case .startToken: 2
        }
    }

    /// The answers of phase `kind`.
    fileprivate subscript(phase kind: Int) -> APIAnswers {
        get { kind == 0 ? tokenReports : kind == 1 ? closes : startTokens }
        set {
            switch kind {
            case 0: tokenReports = newValue
            case 1: closes = newValue
            default: startTokens = newValue
            }
        }
    }
}
