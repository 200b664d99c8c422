import Foundation
import LoadEngine

extension FleetPlan {
    /// The plan as a capacity planner reads it: each figure with the arithmetic that made it.
    public var text: String {
        let rows = (profiledSender.map(profileRows) ?? measuredRows) + planRows + cautions
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
            .joined(separator: "\n")
    }

    /// A run's first rows: what it measured, Little's law on it, and its CPU per push by stage.
    private var measuredRows: [(String, String)] {
        let measuredConnections = max(measured.perConnection.count, 1)
        let streams = measured.configuration.transport.streamsPerConnection
        let littleRate = Double(measuredConnections * streams) / measuredLatencySeconds
        return [
            (
                "measured",
                "\(Self.count(measured.throughputPerSecond)) pushes/s over \(measuredConnections) connection(s) × "
                    + "\(streams) streams, \(measured.configuration.threads) worker thread(s), "
                    + "mean latency \(Self.ms(measuredLatencySeconds)), p99 "
                    + Self.ms(Double(measured.latency.valueAtPercentile(99)) / 1e6)
                    + ", \(measured.mode.rawValue.replacingOccurrences(of: "_", with: " "))"
            ),
            (
                "little's law",
                "\(measuredConnections * streams) streams ÷ \(Self.ms(measuredLatencySeconds)) = "
                    + "\(Self.count(littleRate)) pushes/s if every stream is busy; measured "
                    + "\(Self.percent(measured.throughputPerSecond / littleRate)) of that"
            ),
            (
                "sender CPU",
                String(format: "%.1f µs per push", cpuMicrosPerPush) + " ("
                    + measured.stageTimes.cpuShares(
                        cpuNanosPerPush: cpuMicrosPerPush * 1000,
                        pushes: measured.counts.sent
                    ).named.map { String(format: "%@ %.1f", $0.name, $0.nanos / 1000) }.joined(separator: " + ")
                    + ") → 1e6 ÷ " + String(format: "%.1f", cpuMicrosPerPush)
                    + " = \(Self.count(pushesPerCore)) pushes/s per core"
            ),
        ]
    }

    /// A profile's first rows: what was profiled, and its CPU per push; its latency is not
    /// known from outside.
    private func profileRows(_ command: String) -> [(String, String)] {
        let used = measured.configuration.transport
        return [
            ("measured", "a profile of \(command): its CPU from outside; latency is --rtt's"),
            (
                "sender CPU",
                String(format: "%.1f µs per push → 1e6 ÷ %.1f", cpuMicrosPerPush, cpuMicrosPerPush)
                    + " = \(Self.count(pushesPerCore)) pushes/s per core"
            ),
            (
                "sender streams",
                "\(used.streamsPerConnection) in flight a connection on \(used.connections) connection(s), as the "
                    + "mock saw its pushes (p90): "
                    + (target.streamsPerConnection == nil
                        ? "the plan counts on these, not on the server's limit (--streams plans another setting)"
                        : "the plan counts on --streams \(streamsPerConnection) instead")
            ),
        ] + processRows
    }

    /// A profile's own concurrency: what one process of the sender sends at its pushes in
    /// flight, and the processes of it the target needs.
    private var processRows: [(String, String)] {
        guard let inFlight = senderInFlight, let perProcess = pushesPerProcess, let processes else { return [] }
        return [
            (
                "sender in flight",
                "\(inFlight) pushes in flight across its connections (p90), as the mock saw them → at most "
                    + "\(inFlight) ÷ \(Self.ms(latencySeconds)) = \(Self.count(perProcess)) pushes/s a process"
            ),
            (
                "processes",
                "\(Self.count(target.ratePerSecond)) ÷ (\(Self.count(perProcess)) × \(Self.number(target.headroom)) "
                    + "headroom) = \(processes) of the sender as it is"
            ),
        ]
    }

    /// What binds, and for a profile whose own streams set the connections, that those streams do.
    private var bindingText: String {
        if bindingConstraint == .senderConcurrency, let inFlight = senderInFlight, let perProcess = pushesPerProcess,
            let processes
        {
            return bindingConstraint.rawValue + ", not CPU: one process of it keeps \(inFlight) in flight, so sends "
                + "at most \(Self.count(perProcess)) pushes/s at \(Self.ms(latencySeconds)) whatever its cores; "
                + "\(processes) processes of it as it is, or \(Self.count((self.inFlight / target.headroom).rounded(.up))) in "
                + "flight in one, reach the target"
        }
        guard profiledSender != nil, target.streamsPerConnection == nil, bindingConstraint == .connections else {
            return bindingConstraint.rawValue
        }
        return bindingConstraint.rawValue + ", at the sender's own \(streamsPerConnection) streams in flight a "
            + "connection: more streams a connection (its client's concurrency) need fewer connections and hosts"
    }

    /// The rate asked for: a peak within a time, or sustained.
    private var targetText: String {
        guard let peak = target.peak else { return "\(Self.count(target.ratePerSecond)) pushes/s sustained" }
        return "\(Self.count(Double(peak.pushes))) pushes within \(Self.number(peak.seconds)) s = "
            + "\(Self.count(target.ratePerSecond)) pushes/s"
    }

    /// The p99 to expect, and whether it meets the target.
    private var p99Text: String {
        "\(Self.ms(predictedP99Seconds)) expected "
            + (profiledSender == nil
                ? "(the assumed latency × the measured p99 ÷ mean)"
                : "(the assumed latency; a profile measures no spread)")
            + (target.p99Seconds.map {
                meetsP99
                    ? " ≤ \(Self.ms($0)) target: met"
                    : " > \(Self.ms($0)) target: NOT met, and more hosts do not help (latency-bound)"
            } ?? "")
    }

    /// The fleet the figures call for, row by row.
    private var planRows: [(String, String)] {
        var rows: [(String, String)] = [("target", targetText)]
        rows += [
            (
                "latency",
                "\(Self.ms(latencySeconds)) per push "
                    + (target.latencySeconds == nil ? "(the measured mean)" : "(assumed, --rtt)")
            ),
            (
                "cores",
                "\(Self.count(target.ratePerSecond)) ÷ (\(Self.count(pushesPerCore)) × \(Self.number(target.headroom)) headroom)"
                    + " = \(cores)"
            ),
            (
                "in flight",
                "little's law: \(Self.count(target.ratePerSecond)) pushes/s × \(Self.ms(latencySeconds)) = "
                    + "\(Self.count(inFlight)) requests"
            ),
            (
                "connections",
                "\(Self.count(inFlight)) ÷ (\(streamsPerConnection) streams × \(Self.number(target.headroom)) headroom) "
                    + "= \(connections) (each carries \(Self.count(pushesPerConnection)) pushes/s)"
            ),
            (
                "hosts",
                "max(\(cores) cores ÷ \(target.coresPerHost) per host, \(connections) connections ÷ "
                    + "\(target.connectionsPerHost) per host) = max(\(hostsForCores), \(hostsForConnections)) = \(hosts)"
            ),
            (
                "per host",
                "\(threadsPerHost) worker thread(s) (--threads), \(connectionsPerHostPlanned) connection(s) "
                    + "(--connections), \(streamsPerConnection) streams each"
            ),
            ("binding", bindingText),
            ("p99", p99Text),
        ]
        if let delivered = peakDeliveredSeconds {
            rows.append(
                ("peak delivered", String(format: "the last push answered about %.2f s after the first", delivered))
            )
        }
        return rows
    }

    /// What to keep in mind about a run's CPU per push; nothing for a profile, whose CPU is the
    /// sender's own, whatever it did.
    private var cautions: [(String, String)] {
        guard profiledSender == nil else { return [] }
        var rows: [(String, String)] = []
        if measured.workerBusyShare < 0.5 {
            rows.append(
                (
                    "caution",
                    "the workers were on a CPU \(Self.percent(measured.workerBusyShare)) of this run: each wake-up's "
                        + "cost spread over few pushes, so the CPU per push, and the cores, are on the high side"
                )
            )
        }
        if measured.mode == .openLoop {
            rows.append(
                (
                    "caution",
                    "this run was open loop: its CPU per push includes the pacer waiting between sends; "
                        + "plan from a closed-loop run for the sender's true cost"
                )
            )
        }
        return rows
    }

    /// The plan as JSON-ready values, for scripts; a profile's adds its sender's concurrency.
    public var dictionary: [String: Any] {
        var values = planValues
        if let senderInFlight, let pushesPerProcess, let processes {
            values["sender_in_flight"] = senderInFlight
            values["pushes_per_process_per_s"] = pushesPerProcess
            values["processes"] = processes
        }
        return values
    }

    private var planValues: [String: Any] {
        [
            "target_rate_per_s": target.ratePerSecond,
            "latency_s": latencySeconds,
            "streams_per_connection": streamsPerConnection,
            "headroom": target.headroom,
            "cpu_us_per_push": cpuMicrosPerPush,
            "pushes_per_core_per_s": pushesPerCore,
            "cores": cores,
            "in_flight": inFlight,
            "connections": connections,
            "hosts": hosts,
            "threads_per_host": threadsPerHost,
            "connections_per_host": connectionsPerHostPlanned,
            "binding_constraint": bindingConstraint.rawValue,
            "predicted_p99_s": predictedP99Seconds,
            "meets_p99": meetsP99,
        ]
    }

    static func count(_ value: Double) -> String {
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US")
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 0
        return formatter.string(from: NSNumber(value: value.rounded())) ?? String(Int(value))
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

    static func percent(_ share: Double) -> String { String(format: "%.0f%%", share * 100) }

    static func number(_ value: Double) -> String { RateProfile.number(value) }
}
