import Transport
import Wire
import Workload

/// What one run sends, where, and how hard.
public struct LoadConfiguration: Sendable {
    /// Where and how the pushes travel: origin, connections (shared out among the workers),
    /// streams, deadlines, TLS trust.
    public var transport: TransportConfiguration
    /// Which HTTP/2 client carries the pushes.
    public var transportKind: TransportKind
    /// The pushes: every event of the scenario's activities, in time order.
    public var scenario: Scenario
    /// Your devices' tokens (hex), to address instead of synthetic ones; starts are then not sent.
    public var realTokens: [[UInt8]]?
    /// Stop after this many pushes (shared out among the workers); `nil`: the whole scenario.
    public var requests: Int?
    /// Stop submitting this long after the warmup; requests in flight still finish.
    public var duration: Duration?
    /// The start of the run, whose requests are sent and counted apart but kept out of every
    /// figure (connections, TLS, caches and the server settle first).
    public var warmup: Duration
    /// When pushes are meant to leave.
    public var pacing: Pacing
    /// Dispatch workers, each with its own transport client, connections and share of the
    /// activities.
    public var threads: Int
    /// The app's bundle ID; the topic is `<bundleID>.push-type.liveactivity`.
    public var bundleID: String
    /// `apns-priority` for every push instead of the scenario's per-event priorities.
    public var priorityOverride: Int?
    /// `apns-expiration` is set to the run's start plus this many seconds.
    public var expirationSeconds: Int64
    /// Whether pushes share a cached provider token or each signs its own.
    public var tokenPolicy: ProviderTokenPolicy
    /// Whether and when failed pushes are sent again.
    public var retryPolicy: RetryPolicy
    /// How long to wait before connecting again to a target whose connections keep failing.
    public var reconnectBackoff: ReconnectBackoff
    /// Where the run reads the time of day (tokens, timestamps); the system's clock but in tests.
    public var wallClock: WallClock
    /// How long a closed-loop worker holds a few free streams for a batch (`SubmitBatch`):
    /// 100 µs but in tests, which lengthen it to see batches form at any machine's speed.
    public var submitBatchHold: Duration = SubmitBatch.defaultHold
    /// The part of the run this process sends when many share it (`--shard i/N`): its
    /// contiguous share of the activities, of the request cap and of the rate. Every other field
    /// describes the whole run, so shards' summaries merge into it.
    public var shard: Shard
    /// The wall-clock instant (UNIX seconds) the run's schedule starts at, when shards on many
    /// machines start together (`--start-at`): the run waits for it, then starts its clock. `nil`:
    /// at once.
    public var startAtUnix: Double? = nil
    /// Mistakes the run makes on purpose (`--practice`), for the sender doctor to find and for
    /// a team to see what one costs; `SenderPractice.apply` sets the rest of the configuration.
    public var practices: [SenderPractice] = []
    /// The broadcast channel of each broadcast group, by group id, as APNs issued them (base64):
    /// created before the run (`RunSession`), named by the group's starts and broadcasts.
    public var channelIDs: [Int: String] = [:]

    /// Creates a configuration with the defaults of `pushbench run`.
    public init(
        transport: TransportConfiguration,
        transportKind: TransportKind = .nghttp2,
        scenario: Scenario,
        realTokens: [[UInt8]]? = nil,
        requests: Int? = nil,
        duration: Duration? = nil,
        warmup: Duration = .zero,
        pacing: Pacing = .closedLoop,
        threads: Int = 1,
        bundleID: String = "com.example.pushbench",
        priorityOverride: Int? = nil,
        expirationSeconds: Int64 = 3600,
        tokenPolicy: ProviderTokenPolicy = .cached,
        retryPolicy: RetryPolicy = .none,
        reconnectBackoff: ReconnectBackoff = .standard,
        wallClock: WallClock = .system,
        shard: Shard = .whole
    ) {
        self.transport = transport
        self.transportKind = transportKind
        self.scenario = scenario
        self.realTokens = realTokens
        self.requests = requests
        self.duration = duration
        self.warmup = warmup
        self.pacing = pacing
        self.threads = threads
        self.bundleID = bundleID
        self.priorityOverride = priorityOverride
        self.expirationSeconds = expirationSeconds
        self.tokenPolicy = tokenPolicy
        self.retryPolicy = retryPolicy
        self.reconnectBackoff = reconnectBackoff
        self.wallClock = wallClock
        self.shard = shard
    }

    /// The activities this shard sends.
    public var shardActivities: Range<Int> { shard.range(in: scenario.activities) }

    /// The activities each worker sends, in worker order: contiguous near-equal shares of the
    /// shard's, but that a broadcast group stays with the worker holding its first activity in
    /// the shard, which sends its broadcasts (a worker may then have none).
    public var workerActivities: [Range<Int>] {
        let shardRange = shardActivities
        let workers = max(threads, 1)
        var cuts = (0..<workers).map {
            shardRange.lowerBound
                + ((try? Shard(index: $0, count: workers).range(in: shardRange.count))?.lowerBound ?? 0)
        }
        cuts.append(shardRange.upperBound)
        for index in cuts.indices.dropFirst().dropLast() {
            if let group = scenario.broadcastGroup(containing: cuts[index]),
                group.activities.lowerBound < cuts[index]
            {
                cuts[index] = min(shardRange.upperBound, max(cuts[index], group.activities.upperBound))
            }
            cuts[index] = max(cuts[index], cuts[index - 1])
        }
        return zip(cuts, cuts.dropFirst()).map { $0..<$1 }
    }

    /// The request cap of this shard: its near-equal share of `requests`.
    public var shardRequests: Int? {
        requests.map { LoadWorker.share(of: $0, worker: shard.index, of: shard.count) }
    }

    /// The `apns-topic` of every push.
    public var topic: String { PushType.liveactivity.topic(forBundleID: bundleID) }
}
