import Foundation
import LoadEngine

/// The same peak sent by iOS 18 broadcast instead of per token: one push per channel reaches
/// every device subscribed to it, so the fleet is sized by channels, not devices.
///
/// For a peak of `devices` over `channels` channels within `seconds`: `channels` broadcasts at
/// `channels ÷ seconds` a second, cores from the measured CPU per push, connections from Little's
/// law at the measured broadcast latency (the run's latency if it sent none), all at the
/// headroom; and `channels` channel creations before the event and as many deletions after,
/// which Apple caps at 10,000 channels per app per environment.
public struct BroadcastPlan: Sendable {
    /// Channels an app may hold at once, per environment (Apple).
    public static let channelLimit = 10_000

    /// The run the figures come from.
    public let measured: RunResult
    /// Devices the peak reaches.
    public let devices: Int
    /// Channels the audience is split over (one per match, or more).
    public let channels: Int
    /// How soon the peak must be sent, seconds.
    public let seconds: Double
    /// The share of each core's and connection's capacity used.
    public let headroom: Double

    /// Creates the plan.
    public init(measured: RunResult, devices: Int, channels: Int, seconds: Double, headroom: Double) {
        self.measured = measured
        self.devices = devices
        self.channels = channels
        self.seconds = seconds
        self.headroom = headroom
    }

    /// Broadcasts a second the peak needs.
    public var broadcastsPerSecond: Double { Double(channels) / seconds }
    /// The latency a broadcast is planned with, seconds: the measured broadcasts' mean, or the
    /// run's when it sent none.
    public var latencySeconds: Double {
        let broadcasts = measured.broadcasts.latency
        return (broadcasts.totalCount > 0 ? broadcasts.mean : measured.latency.mean) / 1e6
    }
    /// Cores needed, at the headroom.
    public var cores: Int {
        Self.atLeastOne(broadcastsPerSecond * measured.engineCPUMicrosPerRequest / 1e6 / headroom)
    }
    /// Connections needed, at the headroom (Little's law).
    public var connections: Int {
        let streams = Double(measured.configuration.transport.streamsPerConnection)
        return Self.atLeastOne(broadcastsPerSecond * latencySeconds / (streams * headroom))
    }
    /// Channel management requests around the event: a creation and a deletion per channel.
    public var channelRequests: Int { 2 * channels }
    /// Whether the channels fit under Apple's per-app limit.
    public var fitsChannelLimit: Bool { channels <= Self.channelLimit }

    /// The plan beside the per-token `fleet`, as a capacity planner reads it.
    public func text(beside fleet: FleetPlan) -> String {
        var lines = [
            "by broadcast (iOS 18) over \(channels) channel(s), beside per token:",
            "  per token   \(FleetPlan.count(Double(devices))) pushes, \(fleet.cores) core(s), "
                + "\(fleet.connections) connection(s), \(fleet.hosts) host(s)",
            "  broadcast   \(channels) broadcast(s) at \(FleetPlan.number(broadcastsPerSecond))/s, \(cores) core(s), "
                + "\(connections) connection(s); \(channelRequests) channel requests around the event "
                + "(\(channels) created before, \(channels) deleted after)",
        ]
        if !fitsChannelLimit {
            lines.append(
                "  \(channels) channels are over Apple's \(Self.channelLimit) per app: split the audience over fewer"
            )
        }
        if broadcastsPerSecond / Double(channels) > 1 {
            lines.append("  more than one broadcast a second per channel: Apple's guidance is about one")
        }
        return lines.joined(separator: "\n")
    }

    /// The plan as JSON-ready values.
    public var dictionary: [String: Any] {
        [
            "devices": devices, "channels": channels, "broadcasts_per_s": broadcastsPerSecond,
            "latency_s": latencySeconds, "cores": cores, "connections": connections,
            "channel_requests": channelRequests, "fits_channel_limit": fitsChannelLimit,
        ]
    }

    private static func atLeastOne(_ value: Double) -> Int {
        value.isFinite ? max(1, Int(value.rounded(.up))) : 1
    }
}
