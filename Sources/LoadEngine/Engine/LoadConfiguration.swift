import Wire

/// What one run sends, where, and how hard.
public struct LoadConfiguration: Sendable {
    /// Scheme, host and port of the target, for example `https://127.0.0.1:2197`.
    public var origin: String
    /// Certificates to trust instead of the system store (the mock's own certificate).
    public var trustedCertificatesPEM: [UInt8]?
    /// Whether the server certificate is verified.
    public var verifyPeer: Bool
    /// How many pushes to send.
    public var requests: Int
    /// The most HTTP/2 connections.
    public var connections: Int
    /// The most concurrent streams per connection.
    public var streamsPerConnection: Int
    /// Per-request deadline, milliseconds.
    public var requestTimeoutMs: Int
    /// The app's bundle ID; the topic is `<bundleID>.push-type.liveactivity`.
    public var bundleID: String
    /// `apns-priority`: 10 (immediate, budgeted on device) or 5.
    public var priority: Int
    /// `apns-expiration` is set to the run's start plus this many seconds.
    public var expirationSeconds: Int64
    /// Seed of the synthetic tokens and updates.
    public var seed: UInt64

    /// Creates a configuration with the defaults of `pushbench run`.
    public init(
        origin: String,
        trustedCertificatesPEM: [UInt8]? = nil,
        verifyPeer: Bool = true,
        requests: Int = 100_000,
        connections: Int = 4,
        streamsPerConnection: Int = 100,
        requestTimeoutMs: Int = 10_000,
        bundleID: String = "com.example.pushbench",
        priority: Int = 10,
        expirationSeconds: Int64 = 3600,
        seed: UInt64 = 1
    ) {
        self.origin = origin
        self.trustedCertificatesPEM = trustedCertificatesPEM
        self.verifyPeer = verifyPeer
        self.requests = requests
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
        self.requestTimeoutMs = requestTimeoutMs
        self.bundleID = bundleID
        self.priority = priority
        self.expirationSeconds = expirationSeconds
        self.seed = seed
    }

    /// The `apns-topic` of every push.
    public var topic: String { PushType.liveactivity.topic(forBundleID: bundleID) }
}
