import ArgumentParser
import Foundation
import Harness
import LoadEngine
import Telemetry

/// A run's live figures served to Prometheus while it runs (`--metrics-port`), and for a while
/// after it (`--metrics-hold`), so the last scrape sees the final books.
struct MetricsOptions: ParsableArguments {

    @Option(
        name: .customLong("metrics-port"),
        help: ArgumentHelp(
            "Serve the run's live figures on this port at /metrics, in Prometheus' format, while it runs (0: any free port).",
            discussion: """
                Pushes by outcome and reason, in flight, due and not sent (the open-loop backlog), connections,                 latency and schedule lag as histograms, worker CPU, labelled with the run's id and shard: each                 scrape reads the workers' own counters then, and the last one agrees with summary.json. A port                 in use stops the run before it starts. docs/telemetry.md names every series; deploy/grafana/                 has a dashboard.
                """
        )
    )
    var metricsPort: Int?

    @Option(
        name: .customLong("metrics-host"),
        help: "The address --metrics-port listens on (0.0.0.0 in a pod that Prometheus scrapes)."
    )
    var metricsHost = "127.0.0.1"

    @Option(
        name: .customLong("metrics-hold"),
        help:
            "Keep serving /metrics this long after the run, such as 30s, so the next scrape sees its final figures."
    )
    var metricsHold = TimeSpan(seconds: 0)

    func validate() throws {
        if let metricsPort, !(0...65535).contains(metricsPort) {
            throw ValidationError("--metrics-port must be 0 to 65535")
        }
        if metricsHold.nanoseconds > 0 && metricsPort == nil {
            throw ValidationError("--metrics-hold keeps --metrics-port open: give --metrics-port too")
        }
    }

    /// Starts `--metrics-port`, if given, before the run, so a port in use stops it before
    /// anything is sent.
    func start(runID: String, load: LoadConfiguration, live: LiveMetrics) throws -> MetricsEndpoint? {
        guard let metricsPort else { return nil }
        let telemetry = RunTelemetry(
            run: runID,
            shard: load.shard.index,
            description: [
                ("shards", String(load.shard.count)), ("scenario", load.scenario.name), ("pacing", load.pacing.label),
                ("transport", load.transportKind.rawValue), ("version", PushBench.build.version),
            ],
            live: live
        )
        do {
            let endpoint = try telemetry.serve(host: metricsHost, port: metricsPort)
            Console.err("metrics: http://\(metricsHost):\(endpoint.port)/metrics (run \(runID))")
            return endpoint
        } catch {
            throw CommandLineError("--metrics-port: \(error)")
        }
    }

    /// `--metrics-hold`: keeps the final figures on `/metrics` for the next scrape; Ctrl-C ends it.
    func hold(_ endpoint: MetricsEndpoint, stop: StopFlag) {
        guard metricsHold.nanoseconds > 0, !stop.isSet else { return }
        Console.err("metrics: serving the final figures for \(metricsHold) more (--metrics-hold; Ctrl-C ends it)")
        let until = Date().addingTimeInterval(metricsHold.seconds)
        while Date() < until, !stop.isSet { Thread.sleep(forTimeInterval: min(0.1, until.timeIntervalSinceNow)) }
    }
}
