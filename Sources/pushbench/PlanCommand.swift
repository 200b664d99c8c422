import Analysis
import ArgumentParser
import Foundation
import LoadEngine
import Pages
import Reports

/// `pushbench plan`: fleet sizing from a measured run.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Size a sender fleet (connections, cores, hosts) for a target rate from a measured run.",
        discussion: """
            Reads a run's summary.json (or report folder) and prints each figure with its arithmetic:
            cores from the run's sender CPU per push (all stages: signing, encoding, HTTP/2 and TLS), connections \
            from Little's law (in flight = rate × latency) and the streams a connection carries, hosts from the \
            cores and connections a host has, each at --headroom; then the constraint that sets the number of \
            hosts, and the p99 to expect.

              pushbench plan Reports/<run>/ --peak 10000000 --within 10s --rtt 40ms \\
                  --streams 1000
              pushbench plan Reports/<run>/ --peak 1000000 --within 10s --channels 1
              pushbench plan Reports/<run>/ --rate 50000 --p99 250ms \\
                  --cores-per-host 16 --json plan.json
              pushbench plan Reports/<run>/ --predict-connections 2,4

            Plan from a closed-loop run against a target like the real one: its latency and CPU per push are \
            what the model scales. --rtt replaces the measured latency with APNs' (measure it from the sender's \
            region); APNs itself is assumed to keep that latency at any rate. --predict-connections says what \
            the measured set-up would reach with more connections on the same machine, to check the model \
            against a run (Benchmarks/plan-validate.sh does that).
            """
    )

    @Argument(help: "A measured run's summary.json or report folder.")
    var result: String

    @Option(help: "Pushes of a peak to deliver (with --within), such as 10000000 for a goal in a final.")
    var peak: Int?

    @Option(
        help: "How soon the --peak must be sent (10s, 1m)."
    )
    var within: TimeSpan?

    @Option(help: "A sustained rate to plan for, pushes per second (instead of --peak and --within).")
    var rate: Double?

    @Option(
        help: "Mean latency per push at the target (40ms, 0.1s) (default: the measured run's mean)."
    )
    var rtt: TimeSpan?

    @Option(help: "Streams per connection (default: the measured run's; APNs has allowed 1000).")
    var streams: Int?

    @Option(
        help: "A p99 latency target (250ms), checked against the expected p99."
    )
    var p99: TimeSpan?

    @Option(help: "The share of each core's and connection's capacity to plan for, 0 to 1.")
    var headroom = 0.7

    @Option(name: .customLong("cores-per-host"), help: "Cores of one sender host.")
    var coresPerHost = 8

    @Option(name: .customLong("connections-per-host"), help: "Connections one sender host may hold.")
    var connectionsPerHost = 64

    @Option(
        name: .customLong("predict-connections"),
        help: "Connection counts (such as 2,4) to predict the measured set-up's throughput for."
    )
    var predictConnections: String?

    @Option(
        help: "Also plan the --peak sent by iOS 18 broadcast over this many channels (one per match), beside per token."
    )
    var channels: Int?

    @Option(help: "Also write the plan as JSON here.")
    var json: String?

    func validate() throws {
        if (peak == nil) != (within == nil) { throw ValidationError("--peak and --within go together") }
        if peak != nil && rate != nil { throw ValidationError("give --peak and --within, or --rate, not both") }
        if peak == nil && rate == nil && predictConnections == nil {
            throw ValidationError("give a target: --peak and --within, or --rate (or --predict-connections)")
        }
        if let peak, peak < 1 { throw ValidationError("--peak must be at least 1") }
        if let channels {
            guard channels >= 1 else { throw ValidationError("--channels must be at least 1") }
            guard peak != nil else { throw ValidationError("--channels plans a --peak (with --within) by broadcast") }
        }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate \(rate): must be positive") }
        for (name, value) in [("--within", within), ("--rtt", rtt), ("--p99", p99)] {
            if let value, value.nanoseconds == 0 { throw ValidationError("\(name) 0: must be longer than 0") }
        }
        if let streams, streams < 1 { throw ValidationError("--streams must be at least 1") }
        guard headroom > 0 && headroom <= 1 else { throw ValidationError("--headroom must be above 0 and at most 1") }
        guard coresPerHost >= 1, connectionsPerHost >= 1 else {
            throw ValidationError("--cores-per-host and --connections-per-host must be at least 1")
        }
        _ = try connectionCounts()
    }

    func run() throws {
        if let json { try OutputPath.ensureFile(json, flag: "--json") }
        let (measured, profiled, senderInFlight) = try measuredRun()
        let targetRate = rate ?? peak.map { Double($0) / within!.seconds } ?? measured.throughputPerSecond
        var plan = FleetPlan(
            measured: measured,
            target: FleetPlan.Target(
                ratePerSecond: targetRate,
                peak: peak.map { ($0, within!.seconds) },
                latencySeconds: rtt.map(\.seconds),
                streamsPerConnection: streams,
                p99Seconds: p99.map(\.seconds),
                headroom: headroom,
                coresPerHost: coresPerHost,
                connectionsPerHost: connectionsPerHost
            )
        )
        plan.profiledSender = profiled
        plan.senderInFlight = senderInFlight
        var document: [String: Any] = ["measured_run": result]
        if peak != nil || rate != nil {
            Console.out(plan.text)
            document["plan"] = plan.dictionary
        }
        if let channels, let peak, let within {
            let broadcast = BroadcastPlan(
                measured: measured,
                devices: peak,
                channels: channels,
                seconds: within.seconds,
                headroom: headroom
            )
            Console.out(broadcast.text(beside: plan))
            document["broadcast_plan"] = broadcast.dictionary
        }
        let counts = try connectionCounts()
        if !counts.isEmpty {
            Console.out("predicted on this machine, same target, flat out:")
            var predictions: [[String: Any]] = []
            for count in counts {
                let predicted = plan.predictedThroughput(connections: count)
                Console.out(
                    "  \(count) connection(s): \(Int(predicted.pushesPerSecond.rounded())) pushes/s "
                        + "(bound by \(predicted.limit == .senderCPU ? "the worker threads' CPU" : "streams ÷ latency"))"
                )
                predictions.append([
                    "connections": count, "pushes_per_s": predicted.pushesPerSecond,
                    "limit": predicted.limit.rawValue,
                ])
            }
            document["predictions"] = predictions
        }
        if let json {
            let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
            try ReportFile.save(data, toPath: json)
        }
    }

    /// The run (or profile) to plan from, and for a profile its sender's command and its pushes
    /// in flight across its connections (its connections × its streams a connection, from a
    /// summary written before it gave them); one that measured nothing to plan from, or a
    /// profile without the round trip it cannot measure, is refused.
    private func measuredRun() throws -> (run: RunResult, profiledSender: String?, senderInFlight: Int?) {
        let summary = try RunSummary.read(contentsOf: result)
        let measured = try summary.runResult()
        let profiled = summary.resolvedKind == .profile ? summary.sender?.command ?? "a sender" : nil
        guard measured.counts.succeeded > 0, measured.engineCPUSeconds > 0,
            profiled != nil || measured.latency.totalCount > 0
        else {
            throw CommandLineError("\(result): the run answered no pushes, so it measured nothing to plan from")
        }
        if profiled != nil && (rtt == nil || predictConnections != nil) {
            throw CommandLineError(
                "\(result) is a profile: it measured the sender's CPU per push, not its latency, so give --rtt "
                    + "(APNs' round trip from your hosts, such as 150ms), and --predict-connections does not apply"
            )
        }
        let transport = measured.configuration.transport
        let inFlight = summary.sender.map { $0.inFlightP90 ?? transport.connections * transport.streamsPerConnection }
        return (measured, profiled, inFlight)
    }

    private func connectionCounts() throws -> [Int] {
        guard let predictConnections else { return [] }
        let counts = predictConnections.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) >= 1 }) else {
            throw ValidationError("--predict-connections takes counts such as 2,4")
        }
        return counts.map { $0! }
    }
}
