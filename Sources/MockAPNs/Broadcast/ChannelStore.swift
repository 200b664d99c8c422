import Foundation
import MockFaults
import Synchronization
import Workload

/// The broadcast channels the mock holds, per app (iOS 18 broadcast push,
/// `docs/apns.md` §3.5): created, read, listed and deleted over the channel
/// management listener, and looked up by every broadcast.
///
/// The mock plays one environment, so channels never cross one. IDs are 16 random bytes in
/// base64, never reissued; an app holds at most `limit` channels (Apple: 10,000 per app per
/// environment). A channel's subscribers are the activities whose accepted start named it
/// (`input-push-channel`); a channel nobody subscribed to through the mock has
/// `subscribersPerChannel` simulated ones, so a broadcast's fan-out shows in the stats either
/// way. With a `broadcastsPerSecond` limit, each channel takes that many broadcasts a second
/// (a burst of one second's worth) and APNs' 429 `TooManyRequests` answers the rest.
public final class ChannelStore: Sendable {
    /// A channel's settings, fixed at creation.
    public struct Channel: Sendable, Equatable {
        /// 0: No Message Stored (broadcasts must carry `apns-expiration: 0`); 1: Most Recent
        /// Message Stored.
        public var storagePolicy: Int
        /// Activities whose accepted start subscribed to it.
        public var subscribers = 0
        /// Broadcasts it may take now, under the rate limit.
        var allowance: Double
        /// When `allowance` was last brought up to date, nanoseconds.
        var allowanceAtNanos: UInt64 = 0
    }

    /// Channels an app may hold at once.
    public let limit: Int
    /// Devices subscribed to each channel (simulated; Apple does not say).
    public let subscribersPerChannel: Int
    /// Broadcasts a second each channel takes, or `nil` for no limit.
    public let broadcastsPerSecond: Double?
    /// How long after a broadcast is accepted each subscriber has it, drawn independently per
    /// subscriber (`none`: at once). Apple publishes no figure: it is the user's assumption.
    public let fanout: InjectedLatency
    private let apps = Mutex<[String: [String: Channel]]>([:])
    private let ids = Mutex(SplitMix64(seed: UInt64.random(in: .min ... .max)))

    /// Creates an empty store.
    public init(
        limit: Int = 10_000,
        subscribersPerChannel: Int = 1000,
        broadcastsPerSecond: Double? = nil,
        fanout: InjectedLatency = .none
    ) {
        self.limit = limit
        self.subscribersPerChannel = subscribersPerChannel
        self.broadcastsPerSecond = broadcastsPerSecond
        self.fanout = fanout
    }

    /// When the last of `subscribers` has a broadcast, microseconds after it was accepted: the
    /// median of the largest of that many draws from `fanout`, `F⁻¹(0.5^(1/n))`, computed at once
    /// however many subscribers there are.
    func lastDeliveryMicros(subscribers: Int) -> Double {
        guard subscribers > 0 else { return 0 }
        return fanout.quantile(pow(0.5, 1 / Double(subscribers)))
    }

    /// A new channel for `app`, or `nil` when the app already holds `limit`.
    func create(app: String, storagePolicy: Int) -> String? {
        let id = newID()
        return apps.withLock { apps in
            guard apps[app, default: [:]].count < limit else { return nil }
            apps[app, default: [:]][id] = Channel(
                storagePolicy: storagePolicy,
                allowance: max(1, broadcastsPerSecond ?? 1)
            )
            return id
        }
    }

    /// The channel `id` of `app`, if it exists.
    func channel(app: String, id: String) -> Channel? {
        apps.withLock { $0[app]?[id] }
    }

    /// Subscribes one more activity of `app` to channel `id`; false when there is no such
    /// channel (the device would not start the activity's subscription).
    @discardableResult
    func subscribe(app: String, id: String) -> Bool {
        apps.withLock { apps in
            guard apps[app]?[id] != nil else { return false }
            apps[app]![id]!.subscribers += 1
            return true
        }
    }

    /// Takes one broadcast on channel `id` of `app` at `nowNanos`: the devices it reaches, or
    /// `nil` when the channel is over its rate and the broadcast is refused.
    func admitBroadcast(app: String, id: String, nowNanos: UInt64) -> Int? {
        apps.withLock { apps in
            guard var channel = apps[app]?[id] else { return nil }
            if let rate = broadcastsPerSecond {
                let elapsed = Double(nowNanos &- min(nowNanos, channel.allowanceAtNanos)) / 1e9
                let allowance = min(max(1, rate), channel.allowance + elapsed * rate)
                channel.allowanceAtNanos = nowNanos
                guard allowance >= 1 else {
                    channel.allowance = allowance
                    apps[app]![id] = channel
                    return nil
                }
                channel.allowance = allowance - 1
                apps[app]![id] = channel
            }
            return channel.subscribers > 0 ? channel.subscribers : subscribersPerChannel
        }
    }

    /// Deletes channel `id` of `app`; false when there is no such channel.
    func delete(app: String, id: String) -> Bool {
        apps.withLock { $0[app]?.removeValue(forKey: id) != nil }
    }

    /// The IDs of `app`'s channels, sorted.
    func list(app: String) -> [String] {
        apps.withLock { ($0[app] ?? [:]).keys.sorted() }
    }

    /// Channels held now, over every app.
    public var count: Int {
        apps.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }

    private func newID() -> String {
        let (high, low) = ids.withLock { ($0.next(), $0.next()) }
        let bytes = withUnsafeBytes(of: (high, low)) { Array($0) }
        return Data(bytes).base64EncodedString()
    }

    /// Whether `id` could be a channel ID: base64, at most 64 characters.
    static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count <= 64 && Data(base64Encoded: id) != nil
    }
}
