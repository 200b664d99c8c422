import Foundation
import Histogram
import LoadEngine

/// Fleet sizing: how many connections, cores and hosts a target rate needs, worked out from a
/// measured run with two laws a capacity planner can check by hand.
///
/// - Cores: each push costs the sender `c` µs of CPU (the run's engine CPU per request, all
///   stages: signing, encoding, HTTP/2 and TLS), so a core sends `1e6 / c` pushes a second.
/// - Connections: Little's law, in flight = rate × latency. Each connection carries at most its
///   stream limit in flight, so connections = rate × latency ÷ streams.
///
/// Both are planned at `headroom` (70% by default) so a peak does not run the fleet flat out.
/// Hosts follow from the cores per host and the connections a host may hold; whichever needs
/// more hosts is the binding constraint. The model knows nothing about the target's own
/// capacity: APNs is assumed to keep its latency at any rate, as Apple says fan-out is "not a
/// concern"; a mock on the sender's machine is not, which `predictedThroughput` shows.
public struct FleetPlan: Sendable {
    /// What the plan is for.
    public struct Target: Sendable {
        /// Pushes per second the fleet must sustain.
        public var ratePerSecond: Double
        /// A peak to deliver (pushes and seconds), when the rate came from one.
        public var peak: (pushes: Int, seconds: Double)?
        /// Mean latency per push at the target (round trip to APNs and its answer), seconds;
        /// `nil`: the measured run's.
        public var latencySeconds: Double?
        /// Streams each connection may carry; `nil`: the measured run's.
        public var streamsPerConnection: Int?
        /// The p99 latency the plan must keep, seconds, if any.
        public var p99Seconds: Double?
        /// The share of each core and connection's capacity the plan uses.
        public var headroom: Double
        /// Cores a sender host has.
        public var coresPerHost: Int
        /// Connections a sender host may hold (APNs counts rapid connection churn as abuse, and
        /// each connection costs memory and a TLS session).
        public var connectionsPerHost: Int

        /// Creates a target.
        public init(
            ratePerSecond: Double,
            peak: (pushes: Int, seconds: Double)? = nil,
            latencySeconds: Double? = nil,
            streamsPerConnection: Int? = nil,
            p99Seconds: Double? = nil,
            headroom: Double = 0.7,
            coresPerHost: Int = 8,
            connectionsPerHost: Int = 64
        ) {
            self.ratePerSecond = ratePerSecond
            self.peak = peak
            self.latencySeconds = latencySeconds
            self.streamsPerConnection = streamsPerConnection
            self.p99Seconds = p99Seconds
            self.headroom = headroom
            self.coresPerHost = coresPerHost
            self.connectionsPerHost = connectionsPerHost
        }
    }

    /// What limits the fleet's size.
    public enum Constraint: String, Sendable {
        /// The sender's CPU: signing, encoding and sending.
        case senderCPU = "sender CPU"
        /// The connections a host may hold, at the streams each carries.
        case connections = "connections per host"
        /// A profiled sender's own concurrency: the pushes one process of it keeps in flight,
        /// which at the round trip cap what it sends before its CPU does (a scheduler that
        /// sends one push at a time sends at most one a round trip).
        case senderConcurrency = "sender concurrency"
    }

    /// The run the plan is worked out from.
    public let measured: RunResult
    /// What the plan is for.
    public let target: Target
    /// The command, when `measured` is a profile (`pushbench profile`): its CPU per push is the
    /// sender's, and its latency unknown, so the target's must be given.
    public var profiledSender: String? = nil
    /// For a profile: the pushes its sender kept in flight across all its connections (the
    /// 90th percentile, as the mock saw them), the concurrency one process of it has.
    public var senderInFlight: Int? = nil

    /// Creates the plan of `target` from `measured`.
    public init(measured: RunResult, target: Target) {
        self.measured = measured
        self.target = target
    }

    /// Sender CPU per push, microseconds.
    public var cpuMicrosPerPush: Double { measured.engineCPUMicrosPerRequest }
    /// Pushes a core sends per second, flat out.
    public var pushesPerCore: Double { cpuMicrosPerPush > 0 ? 1e6 / cpuMicrosPerPush : 0 }
    /// The measured mean latency, seconds.
    public var measuredLatencySeconds: Double { measured.latency.mean / 1e6 }
    /// The latency the plan assumes, seconds.
    public var latencySeconds: Double { target.latencySeconds ?? measuredLatencySeconds }
    /// The streams per connection the plan assumes.
    public var streamsPerConnection: Int {
        target.streamsPerConnection ?? measured.configuration.transport.streamsPerConnection
    }
    /// Cores needed, at the headroom.
    public var cores: Int { Self.atLeastOne(target.ratePerSecond / (pushesPerCore * target.headroom)) }
    /// Requests in flight at the target rate (Little's law).
    public var inFlight: Double { target.ratePerSecond * latencySeconds }
    /// What one connection carries, pushes per second, at the headroom.
    public var pushesPerConnection: Double { Double(streamsPerConnection) * target.headroom / latencySeconds }
    /// Connections needed, at the headroom.
    public var connections: Int { Self.atLeastOne(target.ratePerSecond / pushesPerConnection) }
    /// Hosts the cores need.
    public var hostsForCores: Int { Self.atLeastOne(Double(cores) / Double(target.coresPerHost)) }
    /// Hosts the connections need.
    public var hostsForConnections: Int {
        Self.atLeastOne(Double(connections) / Double(target.connectionsPerHost))
    }
    /// Sender hosts.
    public var hosts: Int { max(hostsForCores, hostsForConnections) }
    /// For a profile: what one process of the sender sends at most, pushes per second, at the
    /// plan's latency: its pushes in flight ÷ the latency (Little's law on its own concurrency).
    public var pushesPerProcess: Double? {
        senderInFlight.map { Double(max($0, 1)) / latencySeconds }
    }
    /// For a profile: processes of the sender as it is that the target needs, at the headroom.
    public var processes: Int? {
        pushesPerProcess.map { Self.atLeastOne(target.ratePerSecond / ($0 * target.headroom)) }
    }
    /// What sets the fleet's size: a profiled sender's concurrency when one process of it, at
    /// its pushes in flight, sends less than a core can; else whichever needs more hosts.
    public var bindingConstraint: Constraint {
        if let perProcess = pushesPerProcess, target.streamsPerConnection == nil, perProcess < pushesPerCore {
            return .senderConcurrency
        }
        return hostsForConnections > hostsForCores ? .connections : .senderCPU
    }
    /// Worker threads per host: one per core the host uses, at least one per host.
    public var threadsPerHost: Int { max(1, Self.atLeastOne(Double(cores) / Double(hosts))) }
    /// Connections per host: an equal share, at least one per worker thread (each owns its own).
    public var connectionsPerHostPlanned: Int {
        max(threadsPerHost, Self.atLeastOne(Double(connections) / Double(hosts)))
    }

    /// The p99 latency the plan expects: the assumed latency scaled by the measured run's ratio
    /// of p99 to mean (its spread, from the sender's queues and the target's).
    public var predictedP99Seconds: Double {
        let mean = measured.latency.mean
        guard mean > 0 else { return latencySeconds }
        return latencySeconds * Double(measured.latency.valueAtPercentile(99)) / mean
    }

    /// Whether the p99 target, if any, is kept.
    public var meetsP99: Bool { target.p99Seconds.map { predictedP99Seconds <= $0 } ?? true }

    /// With a peak: when the last push of it is answered, seconds after it starts (the time to
    /// send it at the planned rate, plus its p99).
    public var peakDeliveredSeconds: Double? {
        target.peak.map { Double($0.pushes) / target.ratePerSecond + predictedP99Seconds }
    }

    /// The throughput the measured set-up would reach with `connections` connections instead,
    /// on the same machine against the same target, flat out (no headroom): the lower of what
    /// the streams carry at the measured latency and what the run's worker threads can send.
    public func predictedThroughput(connections count: Int) -> (pushesPerSecond: Double, limit: Constraint) {
        let byStreams =
            Double(count * measured.configuration.transport.streamsPerConnection) / measuredLatencySeconds
        let byCPU = Double(measured.configuration.threads) * pushesPerCore
        return byStreams <= byCPU ? (byStreams, .connections) : (byCPU, .senderCPU)
    }

    private static func atLeastOne(_ value: Double) -> Int {
        value.isFinite ? max(1, Int(value.rounded(.up))) : 1
    }
}
