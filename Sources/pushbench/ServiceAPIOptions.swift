import ArgumentParser
import Foundation
import MockAPNs
import Profiling
import RequestFiles
import ServiceDriver
import Wire
import Workload

/// `profile --api FILE`: a sender service driven through its own API, and how hard.
struct ServiceAPIOptions: ParsableArguments {
    @Option(
        name: .customLong("api"),
        help: ArgumentHelp(
            "Drive COMMAND as a sender service through its own API, as FILE (YAML) maps the scenario onto it.",
            discussion: """
                FILE has a register request (one per activity, before the clock starts: the app's token sync) \
                and an event request (one per group the service fans out, or per activity), each a method, a \
                URL, headers and a JSON body with {{placeholders}} and ${VARIABLES} (docs/profile-api.md; \
                examples/netmera-api.yaml, examples/cleverpush-api.yaml). The service gets the PUSHBENCH_* \
                variables to reach the mock and a free port in PUSHBENCH_SERVICE_PORT; profile waits until it \
                listens, registers every activity, sends the events on the scenario's clock (--time-scale), \
                matches each call to the pushes it caused, and ends the service once they are in. A file with \
                token_report plays the devices too (docs/profile-lifecycle.md; examples/netmera-lifecycle.yaml, \
                examples/cleverpush-lifecycle.yaml): devices report push-to-start tokens, the operator's start \
                calls start activities, each device reports its update token after a delay, and pushes a device \
                would drop are counted as wasted, by cause.
                """
        )
    )
    var file: String?

    @OptionGroup(title: "Devices (an API file whose devices report their own tokens)")
    var devices: DeviceOptions

    @Option(name: .customLong("register-rate"), help: "At most this many registrations a second (default: no limit).")
    var registerRate: Double?

    @Option(name: .customLong("register-concurrency"), help: "Registrations in flight at once.")
    var registerConcurrency = 16

    @Option(
        name: .customLong("timeout"),
        help: "Each API request's deadline; a request past it is counted as timed out."
    )
    var timeout = TimeSpan(seconds: 10)

    @Option(
        name: .customLong("settle"),
        help:
            "With pushes still missing after the last call's answer, how long to wait for more before ending the service."
    )
    var settle = TimeSpan(seconds: 5)

    @Flag(
        name: .customLong("concurrent-calls"),
        help:
            "Send a call when it falls due even while its group's previous call (its activity's, with per: activity) is unanswered. By default each waits for that answer, as a feed sends them; its latency counts from its due time either way."
    )
    var concurrentCalls = false

    @Option(
        name: .customLong("api-connections"),
        help: ArgumentHelp(
            "Connections (and requests in flight) for the operator's calls, and as many for the devices' requests.",
            discussion: """
                By default each client has one for every request that can be in flight at once: the most calls \
                due within one --timeout of each other, or one a device, up to a quarter of the open-file limit \
                (ulimit -n). A request that waits for a free connection waits in PushBench: that wait is measured \
                apart (queued_us), never in the service's latency, and a request still waiting at its deadline \
                is pushbench_queue_timeout, never the service's timeout.
                """
        )
    )
    var apiConnections: Int?

    @Option(name: .customLong("service-wait"), help: "How long the service may take to start listening.")
    var serviceWait = TimeSpan(seconds: 30)

    @Option(
        name: .customLong("mock-port"),
        help: "Without COMMAND: the port on 127.0.0.1 the mock listens on, where the running service sends its pushes."
    )
    var mockPort: Int?

    @Option(
        name: .customLong("mock-tls-cert"),
        help:
            "Without COMMAND: the certificate chain (PEM) the mock serves, one the running service trusts. Needs --mock-tls-key."
    )
    var mockTLSCert: String?

    @Option(name: .customLong("mock-tls-key"), help: "The TLS private key (PEM) for --mock-tls-cert.")
    var mockTLSKey: String?

    func validate() throws {
        if let registerRate, !(registerRate > 0 && registerRate.isFinite) {
            throw ValidationError("--register-rate must be a positive number")
        }
        if !(1...10_000).contains(registerConcurrency) {
            throw ValidationError("--register-concurrency must be 1 to 10000")
        }
        if timeout.nanoseconds == 0 { throw ValidationError("--timeout 0: must be longer than 0") }
        if let mockPort, !(1...65535).contains(mockPort) { throw ValidationError("--mock-port must be 1 to 65535") }
        if (mockTLSCert == nil) != (mockTLSKey == nil) {
            throw ValidationError("--mock-tls-cert and --mock-tls-key go together")
        }
        if let apiConnections, !(1...100_000).contains(apiConnections) {
            throw ValidationError("--api-connections must be 1 to 100000")
        }
        if file == nil, registerRate != nil || registerConcurrency != 16 || apiConnections != nil {
            throw ValidationError(
                "--register-rate, --register-concurrency and --api-connections drive a service: give --api FILE"
            )
        }
    }

    /// What the profile measures: the sender `command`, or without `--api`; with it, the service
    /// `command` starts, its file read with a free port in `PUSHBENCH_SERVICE_PORT`, or, with no
    /// command, the service that already runs, its file read with the environment as it is.
    /// - Throws: `CommandLineError` (bad input) naming the file's line.
    func subject(command: [String]) throws -> ProfileSubject {
        guard let file else { return .sender(command: command) }
        let port = try PortProbe.freePort()
        var environment = ProcessInfo.processInfo.environment
        if !command.isEmpty { environment[APIFile.portVariable] = String(port) }
        let apiFile: APIFile
        do {
            apiFile = try APIFile(path: file, environment: environment)
        } catch {
            throw CommandLineError("--api \(error)")
        }
        var settings = ServiceSession.Settings()
        settings.registerConcurrency = registerConcurrency
        settings.registerRate = registerRate
        settings.timeout = timeout.duration
        settings.connectTimeout = min(timeout.duration, .seconds(5))
        settings.serviceWait = serviceWait.duration
        settings.concurrentCalls = concurrentCalls
        settings.apiConnections = apiConnections
        settings.openFiles = OpenFileLimit.raise()
        if apiFile.lifecycle == nil, devices.isSet {
            throw CommandLineError(
                "--report-delay, --never-report, --rotation-rate, --dismiss and the other device flags play a lifecycle: \(file) has no token_report"
            )
        }
        let api = ServiceAPI(
            file: apiFile,
            port: port,
            settings: settings,
            settle: settle.duration,
            devices: devices.settings()
        )
        guard command.isEmpty, let mockPort else { return .service(command: command, api: api) }
        var identity: TLSIdentity?
        if let mockTLSCert, let mockTLSKey {
            identity = try KeyFile.serverIdentity(certificate: mockTLSCert, key: mockTLSKey)
        }
        return .runningService(api: api, mockPort: mockPort, mockIdentity: identity)
    }
}
