import Budget
import Foundation
import LoadEngine
import MockAPNs
import Reports
import SenderDoctor
import Transport
import Wire
import Workload

/// One `pushbench run` from its target to its measured result: the embedded mock's lifecycle
/// (or an endpoint's `/stats` before and after the run), the engine, and the budget model fed
/// with what the target accepted.
///
/// The command line parses options into a session, then prints and writes what it returns;
/// tests call it directly instead of spawning the binary.
public struct RunSession {
    /// Where the pushes go.
    public enum Target {
        /// A mock started on a free loopback port for the run, as `mock` describes it (its token
        /// hygiene, faults, answer rules and threads), trusting the run's signing key too.
        case embeddedMock(MockAPNsConfiguration = MockAPNsConfiguration())
        /// `load.transport.origin` as configured. When `comparesStats`, its `/stats` are read
        /// before and after the run, so a PushBench mock's count is compared with the client's.
        case endpoint(comparesStats: Bool)
    }

    /// What a session measured.
    public struct Outcome {
        /// The engine's result.
        public let result: RunResult
        /// The mock's own count of the run, when a mock counted it.
        public let serverCounts: ServerCounts?
        /// The accepted pushes on the devices, when a budget was modelled; `finish` names it.
        public let budget: BudgetFeed?
        /// `embedded mock`, or the origin.
        public let targetDescription: String
        /// The sender doctor on what the embedded mock received, when the run made mistakes on
        /// purpose (`LoadConfiguration.practices`).
        public var practices: SenderPractices? = nil
    }

    /// The run; with an embedded mock, its origin and trust are filled in by `run`.
    public var load: LoadConfiguration
    public var target: Target
    /// Signs the provider tokens; with an embedded mock, the mock trusts its key.
    public var tokens: ProviderTokenCache
    /// The budget model's parameters, or `nil` to model none.
    public var budget: BudgetParameters?
    /// When the accepted pushes reach the modelled devices.
    public var budgetClock: BudgetClock
    /// APNs' channel management API for an endpoint target (`https://host:port`), when the
    /// scenario broadcasts; the embedded mock serves its own.
    public var channelOrigin: String?

    /// Creates a session.
    public init(
        load: LoadConfiguration,
        target: Target,
        tokens: ProviderTokenCache,
        budget: BudgetParameters?,
        budgetClock: BudgetClock = .scenario
    ) {
        self.load = load
        self.target = target
        self.tokens = tokens
        self.budget = budget
        self.budgetClock = budgetClock
    }

    /// Starts the target if it is the embedded mock, runs the engine until the run ends or
    /// `stop` is set, and collects the server's count.
    ///
    /// - Parameters:
    ///   - notice: one line for the user, such as where the mock listens (stderr in the CLI).
    ///   - live: where the run's figures can be read while it runs (`RunTelemetry` serves them).
    ///   - progress: the engine's snapshot about every 250 ms.
    /// - Throws: `RunSessionError` when the mock cannot start or the engine cannot set up.
    public func run(
        stop: StopFlag = StopFlag(),
        live: LiveMetrics = LiveMetrics(),
        notice: (String) -> Void = { _ in },
        progress: (ProgressSnapshot) -> Void = { _ in }
    ) throws -> Outcome {
        var load = load
        let prepared = try prepareTarget(&load, notice: notice)
        defer {
            prepared.mock?.shutdown()
            if let recording = prepared.recording { try? FileManager.default.removeItem(atPath: recording.path) }
        }
        let feed = budget.map {
            BudgetFeed(
                parameters: $0,
                scenario: load.scenario,
                lanes: load.workerActivities,
                clock: budgetClock,
                priorityOverride: load.priorityOverride,
                sampleEvery: max(1, load.scenario.activities / 1000)
            )
        }
        let channels = try openChannels(&load, at: prepared.channelOrigin, notice: notice)
        var result: RunResult
        do {
            result = try LoadTest.run(
                load,
                tokens: tokens,
                stop: stop,
                live: live,
                progress: progress,
                onAccepted: { push in feed?.receive(push) }
            )
        } catch {
            channels?.deleteAll()
            throw RunSessionError("the run failed: \(error)")
        }
        if let channels {
            channels.deleteAll()
            result.channels = channels.books
        }
        let serverCounts =
            prepared.mock.map(Self.counts(of:)) ?? prepared.statsBefore.flatMap { countsSince($0, notice: notice) }
        var outcome = Outcome(
            result: result,
            serverCounts: serverCounts,
            budget: feed,
            targetDescription: prepared.description
        )
        if let recording = prepared.recording, let mock = prepared.mock {
            outcome.practices = Self.diagnose(
                recording,
                of: mock,
                budget: budget == nil ? .notModelled : .replay,
                notice: notice
            )
        }
        return outcome
    }

    /// The target as the run addresses it: the embedded mock started (with a recording for the
    /// doctor when the run makes mistakes on purpose), or an endpoint's `/stats` read first.
    private struct PreparedTarget {
        var mock: MockAPNsServer?
        var recording: PushRecorder?
        var statsBefore: ServerCounts?
        var description: String
        var channelOrigin: String?
    }

    /// Starts the embedded mock and points `load` at it, or reads an endpoint's count before.
    private func prepareTarget(_ load: inout LoadConfiguration, notice: (String) -> Void) throws -> PreparedTarget {
        switch target {
        case .embeddedMock(let configuration):
            let recording = try load.practices.isEmpty ? nil : Self.temporaryRecording()
            let server = try startMock(configuration, recorder: recording)
            load.transport.origin = "https://127.0.0.1:\(server.port)"
            load.transport.trustedCertificatesPEM = server.certificatePEM
            notice(
                "mock APNs on \(load.transport.origin) (HTTP/2, TLS, ALPN h2, self-signed), "
                    + "verifying ES256 tokens of key \(tokens.keyID)"
            )
            return PreparedTarget(
                mock: server,
                recording: recording,
                description: "embedded mock",
                channelOrigin: server.channelPort.map { "https://127.0.0.1:\($0)" }
            )
        case .endpoint(let comparesStats):
            let before =
                comparesStats ? MockStatsProbe.fetch(load.transport).flatMap(ServerCounts.init(statsJSON:)) : nil
            if before != nil {
                notice(
                    "\(load.transport.origin) is a PushBench mock: its /stats will be compared with this run's counts"
                )
            }
            return PreparedTarget(statsBefore: before, description: load.transport.origin, channelOrigin: channelOrigin)
        }
    }

    /// Creates the broadcast channels the scenario's groups need, when it broadcasts.
    private func openChannels(
        _ load: inout LoadConfiguration,
        at channelOrigin: String?,
        notice: (String) -> Void
    ) throws -> BroadcastChannels? {
        let groups = load.scenario.broadcastGroups(in: load.shardActivities)
        guard !groups.isEmpty else { return nil }
        guard let channelOrigin else {
            throw RunSessionError("the scenario broadcasts, but no channel management endpoint was given")
        }
        let opened = try BroadcastChannels.create(for: groups, of: load, at: channelOrigin, tokens: tokens)
        load.channelIDs = opened.ids
        notice("created \(opened.ids.count) broadcast channel(s) on \(channelOrigin)")
        return opened
    }

    /// A recording of the embedded mock's traffic in the temporary folder, for the doctor.
    private static func temporaryRecording() throws -> PushRecorder {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("pushbench-\(getpid())-traffic.csv")
        do {
            return try PushRecorder(path: path)
        } catch {
            throw RunSessionError("the embedded mock cannot record for the sender doctor: \(error)")
        }
    }

    /// The sender doctor's findings on what `mock` recorded, or `nil` (with a notice) when the
    /// recording could not be read back; its budget figure from `budget`.
    private static func diagnose(
        _ recording: PushRecorder,
        of mock: MockAPNsServer,
        budget: SenderPractices.BudgetSource,
        notice: (String) -> Void
    ) -> SenderPractices? {
        do {
            try recording.close()
            return SenderPractices(
                records: try TrafficFile.table(recording.path),
                streamsAdvertised: MockAPNsConfiguration().maxConcurrentStreams,
                connectionsAccepted: mock.stats.snapshot().connectionsAccepted,
                budget: budget
            )
        } catch {
            notice("the sender doctor could not read the embedded mock's recording: \(error)")
            return nil
        }
    }

    /// Starts `configuration` on a free loopback port, with a channel port when the scenario
    /// broadcasts, accepting the run's key, recording to `recorder`.
    private func startMock(_ configuration: MockAPNsConfiguration, recorder: PushRecorder?) throws -> MockAPNsServer {
        do {
            var configuration = configuration
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.channelPort = load.scenario.cohorts.contains { $0.delivery == .broadcast } ? 0 : nil
            configuration.keys.append(
                ProviderKey(
                    keyID: tokens.keyID,
                    teamID: tokens.teamID,
                    publicKey: try ES256PublicKey(pem: tokens.key.publicKeyPEM())
                )
            )
            configuration.recorder = recorder
            return try MockAPNsServer.start(configuration)
        } catch {
            throw RunSessionError("the embedded mock APNs could not start: \(error)")
        }
    }

    /// The embedded mock's count of everything it answered on the push port: device pushes and
    /// broadcasts, as the engine counts them (channel requests are the session's, apart).
    private static func counts(of server: MockAPNsServer) -> ServerCounts {
        let snapshot = server.stats.snapshot()
        return ServerCounts(
            pushes: snapshot.pushes + snapshot.broadcasts,
            accepted: snapshot.accepted + snapshot.broadcastsAccepted,
            rejectedByReason: snapshot.rejectedByReason.merging(
                snapshot.broadcastRejectedByReason,
                uniquingKeysWith: +
            ),
            connections: snapshot.connectionsAccepted
        )
    }

    /// An endpoint mock's count of the run: its `/stats` now, less `before`.
    private func countsSince(_ before: ServerCounts, notice: (String) -> Void) -> ServerCounts? {
        let after = MockStatsProbe.fetch(load.transport).flatMap(ServerCounts.init(statsJSON:))
        let during = after?.since(before)
        if during == nil {
            notice(
                after == nil
                    ? "the mock's /stats did not answer after the run, so they are not compared"
                    : "the mock restarted during the run: its /stats cover only part of it, so they are not compared"
            )
        }
        return during
    }
}

/// Why a session could not run: one line for the user.
public struct RunSessionError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
