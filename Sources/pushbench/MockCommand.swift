import ArgumentParser
import Foundation
import Harness
import MockAPNs
import Reports
import Wire
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// `pushbench mock`: the mock APNs on its own, for curl, h2load or another sender.
struct MockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock",
        abstract: "Run the mock APNs server (HTTP/2 over TLS, ALPN h2) until Ctrl-C.",
        discussion: """
            Answers `POST /3/device/<token>` as APNs does (docs/mock.md lists the checks and their order) and `GET /stats` with its counters as JSON; --admin-port serves them over plain HTTP too, with `GET /metrics` for Prometheus. Without --tls-cert/--tls-key it makes a self-signed \
            certificate in memory for localhost, 127.0.0.1 and ::1, the --host address when it is a specific one, and \
            every --cert-name; --cert-out writes that certificate (public, no key) so clients can trust it. A client \
            that verifies it (every PushBench sender does) must dial one of those names:

              pushbench mock --port 2197 --cert-out /tmp/mock.pem
              curl --http2 --cacert /tmp/mock.pem https://127.0.0.1:2197/stats
              pushbench mock --host 0.0.0.0 --cert-name mock-apns.pushbench.svc \\
                  --cert-out /tmp/mock.pem

            Without --auth-key, provider tokens are checked for form only: a missing token gets 403 \
            MissingProviderToken, a malformed one 403 InvalidProviderToken, and any well-formed ES256 token \
            is accepted.

            --unregistered, --expiring and --other-topic make a share of device tokens dead or misfiled, chosen by a \
            hash of the token: `pushbench tokens` and `pushbench run` with the same fractions meet the same ones.
            """
    )

    @Option(help: "Address to listen on (loopback by default).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one. 2197 is APNs' alternative port.")
    var port = 2197

    @Option(
        name: .customLong("admin-port"),
        help:
            "Also serve GET /stats (JSON) and GET /metrics (Prometheus text) over plain HTTP/1.1 on this port of --host; 0 picks a free one."
    )
    var adminPort: Int?

    @Option(name: .customLong("tls-cert"), help: "TLS certificate chain (PEM). Needs --tls-key.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "TLS private key (PEM) for --tls-cert.")
    var tlsKey: String?

    @Option(
        name: .customLong("channel-port"),
        help:
            "Also serve broadcast channel management (create, read, delete, list; APNs' api-manage-broadcast hosts use 2195 and 2196) over HTTP/2 and TLS on this port of --host; 0 picks a free one. Broadcasts themselves go to --port."
    )
    var channelPort: Int?

    @Option(
        name: .customLong("subscribers-per-channel"),
        help:
            "Simulated devices of a channel no accepted start subscribed to (input-push-channel): an accepted broadcast counts this many deliveries."
    )
    var subscribersPerChannel = 1000

    @Option(
        name: .customLong("channel-rate"),
        help: ArgumentHelp(
            "Broadcasts a second each channel takes; more get 429 TooManyRequests (default: no limit).",
            discussion:
                "Apple calls its broadcast limits dynamic; its forum guidance is about one update a second per channel (--channel-rate 1)."
        )
    )
    var channelRate: Double?

    @Option(
        name: .customLong("fanout-latency"),
        help: ArgumentHelp(
            "How long after an accepted broadcast each subscriber has it, as --latency takes it (default: none, at once).",
            discussion:
                "Apple publishes no figure, so this is your assumption; /stats then says, per broadcast, when its last subscriber had it (the median of the largest of its subscribers' draws)."
        )
    )
    var fanoutLatency: String?

    @Option(
        name: .customLong("channel-limit"),
        help: "Channels an app may hold, as Apple's limit per app per environment."
    )
    var channelLimit = 10_000

    @Option(
        name: .customLong("cert-out"),
        help: "Write the certificate clients must trust here (PEM, no key: readable by all, like any CA file)."
    )
    var certOut: String?

    @Option(
        name: .customLong("cert-name"),
        help: ArgumentHelp(
            "Also name this DNS name or IP address in the generated certificate (repeatable).",
            discussion:
                "A sender reaching the mock by another name than localhost or --host, such as a Kubernetes Service (mock-apns.pushbench.svc) or a host name, needs it here: TLS verification checks the name dialled."
        )
    )
    var certNames: [String] = []

    @OptionGroup(title: "Provider key (default: tokens checked for form only)")
    var key: ProviderKeyOptions

    @OptionGroup var server: MockServerOptions

    @Option(
        help: ArgumentHelp(
            "Record every answered push to this CSV file (what arrived and the answer); `pushbench budget --traffic` replays the accepted ones.",
            discussion: "Columns: \(TrafficRecord.header). Written in blocks; complete when the mock stops."
        )
    )
    var record: String?

    @Option(
        help: ArgumentHelp(
            "When the mock stops, write the server's view of the traffic it received to this folder: arrivals per second, priority mix, refusals, per-token cadence (CSV and report.html), and the sender doctor's findings on the sender's practices (practices.json).",
            discussion:
                "Records to DIR/traffic.csv unless --record names another file; the report is built from that recording, held in memory (about 200 bytes a push)."
        )
    )
    var report: String?

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if tlsCert != nil && !certNames.isEmpty {
            throw ValidationError("--cert-name names the generated certificate; --tls-cert's names are its own")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        if let adminPort, !(0...65535).contains(adminPort) {
            throw ValidationError("--admin-port must be 0 to 65535")
        }
        if let channelPort, !(0...65535).contains(channelPort) {
            throw ValidationError("--channel-port must be 0 to 65535")
        }
        if let channelRate, !(channelRate > 0 && channelRate.isFinite) {
            throw ValidationError("--channel-rate must be a positive number of broadcasts a second")
        }
        guard subscribersPerChannel >= 0, channelLimit >= 1 else {
            throw ValidationError("--subscribers-per-channel must be at least 0 and --channel-limit at least 1")
        }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        // Ctrl-C is caught from the start: one that arrives while the server starts stops it as
        // soon as it is up, instead of killing the process mid-start.
        let running = RunningServer()
        let trap = InterruptTrap { running.shutdown() }
        defer { _ = trap }
        if let report { try OutputPath.ensureFolder(report, flag: "--report") }
        if let record { try OutputPath.ensureFile(record, flag: "--record") }
        if let certOut { try OutputPath.ensureFile(certOut, flag: "--cert-out") }
        let configuration = try serverConfiguration()
        let server: MockAPNsServer
        do {
            server = try MockAPNsServer.start(configuration)
        } catch {
            throw CommandLineError.runtime("the mock could not start: \(error)")
        }
        if let certOut {
            do {
                try Data(server.certificatePEM).write(to: URL(fileURLWithPath: certOut), options: .atomic)
            } catch {
                server.shutdown()
                throw CommandLineError("cannot write the certificate to \(certOut): \(error.localizedDescription)")
            }
        }
        announce(server, configuration)
        running.started(server)
        try server.waitUntilClosed()
        try reportStop(server.stats.snapshot(), recorder: configuration.recorder)
        try trap.throwIfInterrupted()
    }
}

extension MockAPNsConfiguration.Environment: ExpressibleByArgument {}
