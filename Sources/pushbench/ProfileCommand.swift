import ArgumentParser
import ArrivalMatching
import Foundation
import Harness
import Profiling
import Reports
import SealedNetwork
import ServiceDriver
import Synchronization
import Wire

#if canImport(Glibc)
import Glibc
#endif

/// `pushbench profile`: a team's own sender, run against the mock and measured from outside.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract:
            "Run your own sender against the mock and measure its CPU and memory per push, its lag and its practices.",
        discussion: """
            Starts the mock, writes the scenario's pushes for the sender and runs COMMAND with PUSHBENCH_* variables \
            naming what it needs (docs/profile.md has the contract, and examples/ adapters to copy):

              PUSHBENCH_APNS_URL (_HOST, _PORT), _CA_FILE: the mock, its certificate
              PUSHBENCH_AUTH_KEY, _KEY_ID, _TEAM_ID: the .p8 to sign with
              PUSHBENCH_BUNDLE_ID, _TOPIC: the app
              PUSHBENCH_TOKENS, _EVENTS: the tokens, and the pushes as JSON lines
              PUSHBENCH_START_AT: UNIX seconds of the pushes' at_s 0

            It watches the sender until it exits, --duration passes or Ctrl-C: CPU of the sender and every \
            descendant (the kernel's accounting), their memory, each push's lag (arrival at the mock minus its \
            event's time), events missing and pushes extra, the mock's answers, and the sender doctor's findings. \
            The report goes to <reports-dir>/<run-id>/ as run's does (summary.json with sender, lag and events; \
            timeseries.csv; report.html), with the mock's traffic report in traffic/.

              pushbench profile --requests 20000 -- python3 examples/aioapns_sender.py
              pushbench profile --rate 500 --duration 5m -- \\
                  ./my-sender --config staging.yaml
              pushbench profile --api examples/netmera-api.yaml --activities 10000 \\
                  --time-scale 60 -- python3 my_service.py
              pushbench profile --as-apple --requests 5000 -- ./my-sender

            With --api FILE, COMMAND is a sender service: profile registers every activity through its API, \
            sends it the scenario's events as its API takes them, and measures the API's answers and each \
            call's fan-out to the mock (summary.json: registrations, api, fanout, events); docs/profile-api.md. \
            Without COMMAND, the service already runs where FILE says, sending to the mock at --mock-port and \
            signing with --auth-key: its answers and pushes are measured, not its CPU and memory.

            With --as-apple, COMMAND runs unmodified in a sealed network of its own: Apple's APNs names are the \
            mock (the production name plays production, the sandbox and development names development), its CA \
            is trusted through the variables each stack reads and the system bundle, and nothing else answers but \
            --reach addresses. The first screen says which name each push came to; docs/as-apple.md.

            Exit status: 0; 2 for bad input (a COMMAND that does not exist); 3 when the profile failed (the \
            sender exited non-zero, died of a signal profile did not send, or sent nothing), with the cause and \
            the sender's last stderr lines; 4 when profiling itself failed; 130 after Ctrl-C (143 after \
            SIGTERM), with what was measured written.
            """
    )

    @OptionGroup(title: "Scenario")
    var scenario: ScenarioOptions

    @OptionGroup var limit: RequestLimitOptions

    @OptionGroup(title: "Schedule")
    var pace: ScheduleOptions

    @OptionGroup(title: "The sender's start and stop")
    var schedule: ProfileScheduleOptions

    @OptionGroup var app: AppOptions

    @OptionGroup var reports: ReportsFolderOptions

    @OptionGroup(title: "Gates and machine-readable output")
    var gate: GateOptions

    @Flag(
        name: .customLong("keep-events"),
        help:
            "Keep the events file the sender was handed (about 400 bytes a push) in the report folder; by default it is removed once the sender has gone."
    )
    var keepEvents = false

    @OptionGroup(title: "Budget")
    var budget: RunBudgetOptions

    @OptionGroup(title: "Provider key (default: a P-256 key made for the run, deleted when it ends)")
    var key: ProviderKeyOptions

    @OptionGroup(title: "The mock")
    var server: MockServerOptions

    @OptionGroup(title: "Where the CPU goes")
    var perf: PerfOptions

    @OptionGroup(title: "A sender service, driven through its API")
    var api: ServiceAPIOptions

    @OptionGroup(title: "A sender as it ships, at Apple's own host names")
    var sealed: SealedNetworkOptions

    @Argument(parsing: .postTerminator, help: "The sender to run, after --: a program and its arguments.")
    var command: [String] = []

    func validate() throws {
        try scenario.requireOneDelivery()
        _ = try gate.parsed(for: .profile)
        if budget.budgetClock == .run {
            throw ValidationError("--budget-clock run: profile models the budget on the scenario's clock only")
        }
        if sealed.asApple {
            if command.isEmpty {
                throw ValidationError("--as-apple runs the sender given after -- in a sealed network")
            }
        }
        guard command.isEmpty else {
            if api.mockPort != nil || api.mockTLSCert != nil {
                throw ValidationError(
                    "--mock-port, --mock-tls-cert and --mock-tls-key are for a service that already runs (no COMMAND)"
                )
            }
            return
        }
        // No command: only a service that already runs, reached through --api.
        if api.file == nil { throw ValidationError("give the sender to run after --, such as: -- python3 sender.py") }
        if api.mockPort == nil || key.authKey == nil {
            throw ValidationError(
                "--api without a COMMAND profiles a service that already runs: give --mock-port (where it sends its pushes) and --auth-key, --key-id, --team-id (the key it signs with)"
            )
        }
        if perf.enabled { throw ValidationError("--perf samples a sender profile starts: give it after --") }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let subject = try api.subject(command: command)
        if let file = subject.api?.file {
            do { try ServiceWork.check(pace.eventTiming, for: file) } catch { throw CommandLineError("\(error)") }
        }
        if let command = subject.command { try checkCommand(command) }
        if sealed.asApple, let port = subject.api?.file.loopbackPorts.ports.first(where: AppleHost.ports.contains) {
            throw CommandLineError(
                "--as-apple: the service's API is on port \(port), which the mock holds for Apple's names in the sealed network (443, 2197, 2195, 2196): give the service another port"
            )
        }
        if sealed.asApple, let elsewhere = subject.api?.file.loopbackPorts.elsewhere.first {
            throw CommandLineError(
                "--as-apple: the service listens inside its sealed network, reached on 127.0.0.1 or localhost only, and \(elsewhere) names another host"
            )
        }
        let stopRequested = Atomic<Bool>(false)
        let trap = InterruptTrap { stopRequested.store(true, ordering: .relaxed) }
        let runID = RunContext.makeRunID()
        let folder = reports.folder(runID: runID)
        try reports.ensure()
        try gate.prepare()
        let profiler = try profiler(folder: folder, subject: subject)
        var display = ProgressDisplay()
        let measured: (profile: SenderProfile, recording: String)
        do {
            measured = try profiler.run(
                stop: { stopRequested.load(ordering: .relaxed) },
                notice: { Console.err($0) },
                progress: { display.show(Self.progressLine($0), at: $0.elapsedSeconds) }
            )
        } catch let error as ProfileError {
            display.finish()
            switch error {
            case .badInput: throw CommandLineError("\(error)")
            case .stoppedBeforeStart:
                Console.err("\(error)")
                try trap.throwIfInterrupted()
                throw CommandLineError.runtime("\(error)")
            case .systemCall: throw CommandLineError.runtime("\(error)")
            }
        }
        display.finish()
        let profile = measured.profile
        let thresholdsHeld = try report(
            profile,
            recording: measured.recording,
            profiler: profiler,
            runID: runID,
            folder: folder
        )
        try trap.throwIfInterrupted()
        if profile.pushbenchFailure != nil { throw ExitCode(ExitStatus.runtimeFailure) }
        if profile.failure != nil { throw ExitCode(ExitStatus.nothingSucceeded) }
        if !thresholdsHeld { throw ExitCode(ExitStatus.gateFailed) }
    }
}
