import ArrivalMatching
import Basics
import DeviceEmulation
import Foundation
import Glibc
import MockAPNs
import Sampling
import SealedNetwork
import ServiceDriver
import Transport
import Wire
import Workload

/// `pushbench profile`'s measurement: starts the mock, writes the sender's contract, runs the
/// sender as a child until it exits, `duration` passes or `stop` is set, ends it and every
/// descendant within the grace, and returns what it measured from outside.
///
/// Watching is a loop of 200 ms ticks (`ProfileWatch`); every stop is bounded: a sender gets
/// SIGTERM, then SIGKILL after the grace, and watching ends at most 5 s later whatever remains.
/// Every time is read from one clock (`ProfileClock`).
public struct SenderProfiler {
    /// What is profiled: a sender, a service profile starts, or a service that already runs.
    public var subject: ProfileSubject
    /// The pushes to hand it, the first `requests` of them when set, due as `timing` says.
    public var scenario: Scenario
    public var requests: Int?
    public var timing: EventTiming
    /// Between the sender's start and `at_s` 0.
    public var lead: Duration
    /// After the sender's start, when it is ended if it has not exited.
    public var duration: Duration?
    /// Between SIGTERM and SIGKILL.
    public var grace: Duration
    /// The run's folder: the contract's files, the sender's output and the recording go here.
    public var folder: String
    /// The mock, as `pushbench mock`'s options describe it; port, recorder and key are set here.
    public var mock: MockAPNsConfiguration
    /// The provider key the sender signs with: the user's `.p8` file, or one made for the run.
    public var signingKey: SigningKey
    /// The app whose activities are updated.
    public var bundleID: String
    /// Whether perf samples the sender's call stacks (`--perf`).
    public var samplesStacks = false
    /// Whether the events file stays once the sender has gone (`--keep-events`): about 400
    /// bytes a push, so a million pushes would leave 400 MB in every profile's folder.
    public var keepsEvents = false
    /// The sealed network the sender runs in (`--as-apple`), or `nil` for PushBench's own.
    public var sealing: Sealing?

    /// A sealed network for the sender: Apple's names are the mock, and nothing else answers
    /// but `reach`.
    public struct Sealing: Sendable {
        /// Addresses outside the sender may reach (`--reach`), and names inside for the stubs
        /// it starts (`--host`).
        public var reach: [ReachAddress]
        public var stubs: [StubHost]

        public init(reach: [ReachAddress] = [], stubs: [StubHost] = []) {
            self.reach = reach
            self.stubs = stubs
        }
    }

    /// The key handed to the sender.
    public enum SigningKey: Sendable {
        /// The user's `.p8`, passed by path, with its `kid` and `iss`, and its public half.
        case file(path: String, keyID: String, teamID: String, publicKey: ES256PublicKey)
        /// A key made for this run, written to the run's folder (mode 0600).
        case generated(ES256PrivateKey, keyID: String, teamID: String)
    }

    /// Creates a profiler; the defaults are `pushbench profile`'s.
    public init(
        subject: ProfileSubject,
        scenario: Scenario,
        folder: String,
        mock: MockAPNsConfiguration,
        signingKey: SigningKey,
        requests: Int? = nil,
        timing: EventTiming = .allAtOnce,
        lead: Duration = .seconds(2),
        duration: Duration? = nil,
        grace: Duration = .seconds(5),
        bundleID: String = "com.example.pushbench"
    ) {
        self.subject = subject
        self.scenario = scenario
        self.folder = folder
        self.mock = mock
        self.signingKey = signingKey
        self.requests = requests
        self.timing = timing
        self.lead = lead
        self.duration = duration
        self.grace = grace
        self.bundleID = bundleID
    }

    /// What is in place before the mock starts: the book pushes are matched in, and a sender's
    /// `at_s` 0 (UNIX seconds) or a service's work.
    struct Preparation {
        var book: ArrivalBook
        var startAtUnix: Double?
        var work: ServiceWork?
    }

    /// Runs the profile.
    ///
    /// - Parameters:
    ///   - stop: set (from a signal handler) to end the sender early.
    ///   - notice: one line for the user: where the mock listens, what the sender was handed.
    ///   - progress: the figures so far, about once a second.
    /// - Throws: `ProfileError` when the files cannot be written or the sender cannot start,
    ///   `MockAPNsStartError` when the mock cannot.
    public func run(
        stop: @escaping @Sendable () -> Bool = { false },
        notice: (String) -> Void = { _ in },
        progress: (ProfileProgress) -> Void = { _ in }
    ) throws -> (profile: SenderProfile, recording: String) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let clock = ProfileClock()
        let prepared = try prepare(clock: clock, stop: stop, notice: notice)
        let book = prepared.book
        let recorder = try recorder(book: book, devices: prepared.work?.fleet)
        let launch = try launch(recorder: recorder, prepared: prepared, clock: clock, stop: stop, notice: notice)
        let (server, sender, sampling) = (launch.server, launch.sender, launch.sampling)
        defer { server.shutdown() }
        defer { launch.relay?.stop() }
        // A key made for the run is the sender's only while it runs: no private key is left behind.
        defer { launch.throwawayKey?.remove() }
        var watch = ProfileWatch(
            sender: sender,
            book: book,
            sampler: launch.sampler,
            clock: clock,
            duration: duration,
            grace: grace,
            mockCPU: { [devices = prepared.work?.fleet] in
                ProcessStat.ownThreadsCPUSeconds(namedLike: MockAPNsServer.threadNamePrefix)
                    - (devices?.emulationOnMockCPUSeconds ?? 0)
            }
        )
        announce(sender, startAt: prepared.startAtUnix, watch: watch, notice: notice)
        watchUntilFinished(&watch, work: prepared.work, stop: stop, notice: notice, progress: progress)
        if prepared.work == nil { removeEvents(notice: notice) }
        server.shutdown()
        do {
            try recorder.close()
        } catch {
            notice("warning: \(error); the traffic report covers the pushes before it")
        }
        var profile = watch.profile(
            subject: subject,
            startAt: prepared.startAtUnix ?? prepared.work?.session.answers.startAtUnix ?? watch.startedAt,
            mock: server.stats.snapshot(),
            stderrTail: Self.lastLines(of: path("sender.stderr.log"), count: 5)
        )
        profile.service = try prepared.work?.outcome(
            cpuSeconds: profile.cpuSeconds,
            stoppedPushing: profile.stop == .settled
        )
        profile.sealedNetwork = launch.sealedNetworkSummary
        if let sender {
            profile.cpuSampling = sampling?.flatMap {
                $0.finish(following: sender.pid, scope: "the sender and every process it started")
            }
        }
        return (profile, path("traffic.csv"))
    }

    /// The recording of every push the mock answers, each handed on as it arrives: to the
    /// devices first when they are played, then to the book (which only counts a start: no
    /// call's schedule holds it).
    private func recorder(book: ArrivalBook, devices: DeviceFleet?) throws -> PushRecorder {
        try PushRecorder(path: path("traffic.csv")) { arrival in
            guard let devices else { return book.arrived(arrival) }
            if devices.arrived(arrival) { book.arrived(arrival) } else { book.counted(arrival) }
        }
    }

    /// A sender's events written, or a service's work laid out, with the book to match in.
    private func prepare(clock: ProfileClock, stop: () -> Bool, notice: (String) -> Void) throws -> Preparation {
        guard let api = subject.api else {
            let written = try writeEvents(clock: clock, stop: stop, notice: notice)
            return Preparation(book: written.book, startAtUnix: written.startAt)
        }
        let work = try ServiceWork(api, scenario: scenario, requests: requests, timing: timing, clock: clock)
        let devices = work.workload.isLifecycle ? "devices to play" : "activities to register"
        let workload = work.workload
        let sent = workload.calls.count { !$0.ownClock }
        notice(
            "\(workload.activities) \(devices); \(workload.starts.count) start calls and \(sent) event calls"
                + (api.file.event.map { " to \($0.urlText)" } ?? "")
                + (sent < workload.calls.count
                    ? ", \(workload.calls.count - sent) owed on the service's own clock" : "")
                + ", causing \(workload.expectedPushes) pushes"
        )
        return Preparation(book: work.book, work: work)
    }

    /// Starts the mock with `recorder`, on the port and certificate a running service expects;
    /// the devices, when played, say which of their tokens have died.
    func startMock(
        recorder: PushRecorder,
        devices: DeviceFleet?,
        identity: TLSIdentity? = nil,
        adopted: [AdoptedListener] = []
    ) throws -> MockAPNsServer {
        var mock = self.mock
        mock.port = 0
        if case .runningService(_, let port, let identity) = subject {
            mock.port = port
            if let identity { mock.identity = identity }
        }
        if let identity { mock.identity = identity }
        mock.adoptedListeners = adopted
        mock.recorder = recorder
        if let devices { mock.unregisteredSince = { devices.unregisteredSince($0) } }
        mock.keys.append(try verificationKey())
        return try MockAPNsServer.start(mock)
    }

    /// Starts the command, when profile runs one, with the contract in its environment.
    func startSender(
        contract: SenderContract,
        apart perfPID: Int32?,
        sealedIn network: SealedNetwork? = nil
    ) throws -> SenderProcess? {
        guard let command = subject.command else { return nil }
        return try SenderProcess(
            command: command,
            environment: contract.inheritedEnvironment,
            outputPath: path("sender.stdout.log"),
            errorPath: path("sender.stderr.log"),
            apart: Set([perfPID].compactMap { $0 }),
            sealedIn: network
        )
    }

    /// Says what was started, or that a running service's processes are not measured.
    private func announce(_ sender: SenderProcess?, startAt: Double?, watch: ProfileWatch, notice: (String) -> Void) {
        guard let sender, let command = subject.command else {
            return notice(
                "profiling \(subject.description): its answers and pushes are measured, its CPU and memory "
                    + "are not (profile did not start it)"
            )
        }
        notice(
            "started \(command.joined(separator: " ")) (pid \(sender.pid))"
                + (startAt.map { String(format: "; at_s 0 is %.1f s after its start", $0 - watch.startedAt) } ?? "")
                + "; its output: \(path("sender.stdout.log")), \(path("sender.stderr.log"))"
        )
    }

    /// Ticks until the sender has gone (or a service's work is done and it has gone), then
    /// joins the service's session, so that its answers are final when read.
    private func watchUntilFinished(
        _ watch: inout ProfileWatch,
        work: ServiceWork?,
        stop: () -> Bool,
        notice: (String) -> Void,
        progress: (ProfileProgress) -> Void
    ) {
        work?.session.start()
        while !watch.finished {
            let workDone = work?.observe(cpuSeconds: { watch.cpuSecondsNow() }, notice: notice)
            watch.tick(
                stopRequested: stop(),
                workDone: workDone.map { $0.pushesMissing ? .settled : .drained }
            )
            if let figures = watch.progressDue() { progress(figures) }
            usleep(ProfileWatch.tickMicroseconds)
        }
        work?.session.stopAndJoin()
    }

    /// Writes the events and tokens files for a sender, and the book their pushes are matched in:
    /// `at_s` 0 is a whole UNIX second, on `clock`'s wall-clock reading.
    private func writeEvents(
        clock: ProfileClock,
        stop: () -> Bool,
        notice: (String) -> Void
    ) throws -> (startAt: Double, book: ArrivalBook) {
        let writeBegan = clock.unix(ofNs: clock.nowNs)
        let startAt = (writeBegan + lead.inSeconds + Self.writingSeconds(requests: requests)).rounded(.up)
        let written = try EventsFile.write(
            scenario: scenario,
            requests: requests,
            timing: timing,
            bundleID: bundleID,
            startAt: startAt,
            eventsPath: path("events.jsonl"),
            tokensPath: path("tokens.txt"),
            shouldStop: stop
        )
        notice(
            "wrote \(written.schedule.events) events to \(path("events.jsonl")) ("
                + Self.megabytes(written.eventBytes) + ", "
                + String(format: "%.0f", Double(written.eventBytes) / Double(max(1, written.schedule.events)))
                + " bytes a push) for \(written.schedule.tokens) tokens in "
                + String(format: "%.2f s", clock.unix(ofNs: clock.nowNs) - writeBegan)
                + (keepsEvents ? "" : "; removed when the sender has gone (--keep-events keeps it)")
        )
        return (startAt, ArrivalBook(schedule: written.schedule, startNs: clock.ns(ofUnix: startAt)))
    }

    /// Removes the events file once the sender has gone, unless it is to be kept.
    private func removeEvents(notice: (String) -> Void) {
        let events = path("events.jsonl")
        guard !keepsEvents,
            let size = (try? FileManager.default.attributesOfItem(atPath: events))?[.size] as? Int
        else { return }
        do {
            try FileManager.default.removeItem(atPath: events)
            notice("removed \(events) (\(Self.megabytes(size))); --keep-events keeps it")
        } catch {
            notice("warning: could not remove \(events): \(error.localizedDescription)")
        }
    }

    /// `bytes` in megabytes, as a console line says a file's size.
    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1e6)
    }

    /// Sleeps until `lead` before `startAt`, when the sender is started, a few milliseconds at a
    /// time, so a `stop` (Ctrl-C, SIGTERM) ends the wait.
    /// - Throws: `ProfileError.stoppedBeforeStart` when `stop` says so: no sender is started.
    func waitForLead(startAt: Double, clock: ProfileClock, stop: () -> Bool, notice: (String) -> Void) throws {
        let left = Double(clock.ns(ofUnix: startAt) - clock.nowNs) / 1e9
        if left > lead.inSeconds {
            let until = clock.ns(ofUnix: startAt - lead.inSeconds)
            while clock.nowNs < until {
                if stop() { throw ProfileError.stoppedBeforeStart("stopped before the sender was started") }
                usleep(useconds_t(min(20_000, max(1, (until - clock.nowNs) / 1000))))
            }
        } else {
            notice(
                String(format: "warning: writing the events took long, so the sender has %.1f s, not ", max(0, left))
                    + String(format: "%.1f s, before at_s 0", lead.inSeconds)
            )
        }
    }

    /// Time allowed to write the events before the lead starts counting: the sender starts
    /// `lead` before `at_s` 0 unless writing took longer. A second, and a second more for
    /// every 300,000 pushes (this machine writes about a million a second; the rest is margin).
    private static func writingSeconds(requests: Int?) -> Double {
        1 + Double(requests ?? 0) / 300_000
    }

    func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// The contract, with the certificate written, and the key made for the run when no key
    /// file was given: written outside the report folder, where a watchdog removes it.
    func contract(
        host: String = "127.0.0.1",
        port: Int,
        certificate: [UInt8],
        startAt: Double?
    ) throws -> (SenderContract, ThrowawayKeyFile?) {
        var ca = try OutputFile(path: path("mock-ca.pem"))
        try ca.append(certificate)
        try ca.close()
        let key: (path: String, keyID: String, teamID: String)
        var throwaway: ThrowawayKeyFile?
        switch signingKey {
        case .file(let file, let keyID, let teamID, _):
            key = (file, keyID, teamID)
        case .generated(let privateKey, let keyID, let teamID):
            let file = try ThrowawayKeyFile(pem: try privateKey.pkcs8PEM(), name: "AuthKey_\(keyID).p8")
            throwaway = file
            key = (file.path, keyID, teamID)
        }
        let contract = SenderContract(
            host: host,
            port: port,
            caFile: path("mock-ca.pem"),
            authKey: key.path,
            tokensFile: subject.api == nil ? path("tokens.txt") : nil,
            eventsFile: subject.api == nil ? path("events.jsonl") : nil,
            keyID: key.keyID,
            teamID: key.teamID,
            bundleID: bundleID,
            startAt: startAt,
            servicePort: subject.api?.port
        )
        return (contract, throwaway)
    }

    /// The key whose tokens the mock accepts: the sender's.
    private func verificationKey() throws -> ProviderKey {
        switch signingKey {
        case .file(_, let keyID, let teamID, let publicKey):
            ProviderKey(keyID: keyID, teamID: teamID, publicKey: publicKey)
        case .generated(let privateKey, let keyID, let teamID):
            ProviderKey(keyID: keyID, teamID: teamID, publicKey: try ES256PublicKey(pem: try privateKey.publicKeyPEM()))
        }
    }

    /// The last `count` lines of the file at `path` (its last 8 KiB at most).
    static func lastLines(of path: String, count: Int) -> [String] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 8192 ? size - 8192 : 0)
        let text = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        return Array(text.split(separator: "\n", omittingEmptySubsequences: true).suffix(count).map(String.init))
    }
}
