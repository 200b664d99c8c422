import Transport
import Wire

/// What one run sends, where, and how hard.
public struct LoadConfiguration: Sendable {
    /// Where and how the pushes travel: origin, connections, streams, deadlines, TLS trust.
    public var transport: HTTP2PushClient.Configuration
    /// How many pushes to send.
    public var requests: Int
    /// The app's bundle ID; the topic is `<bundleID>.push-type.liveactivity`.
    public var bundleID: String
    /// `apns-priority`: 10 (immediate, budgeted on device), 5 or 1.
    public var priority: Int
    /// `apns-expiration` is set to the run's start plus this many seconds.
    public var expirationSeconds: Int64
    /// Seed of the synthetic tokens and updates.
    public var seed: UInt64
    /// Whether pushes share a cached provider token or each signs its own.
    public var tokenPolicy: ProviderTokenPolicy
    /// Open loop: pushes per second. Push `i` is intended at the start plus `i / rate`, and its
    /// latency runs from that moment even when no stream was free to send it then, so a
    /// stalled target shows in the percentiles (no coordinated omission). `nil`: closed loop,
    /// a push leaves whenever a stream is free and its latency runs from then.
    public var ratePerSecond: Double?

    /// Creates a configuration with the defaults of `pushbench run`.
    public init(
        transport: HTTP2PushClient.Configuration,
        requests: Int = 100_000,
        bundleID: String = "com.example.pushbench",
        priority: Int = 10,
        expirationSeconds: Int64 = 3600,
        seed: UInt64 = 1,
        tokenPolicy: ProviderTokenPolicy = .cached,
        ratePerSecond: Double? = nil
    ) {
        self.transport = transport
        self.requests = requests
        self.bundleID = bundleID
        self.priority = priority
        self.expirationSeconds = expirationSeconds
        self.seed = seed
        self.tokenPolicy = tokenPolicy
        self.ratePerSecond = ratePerSecond
    }

    /// The `apns-topic` of every push.
    public var topic: String { PushType.liveactivity.topic(forBundleID: bundleID) }
}
