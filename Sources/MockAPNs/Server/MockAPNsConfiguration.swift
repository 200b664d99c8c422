import Foundation
import MockFaults
import Wire
import Workload

/// How a mock APNs server listens and judges requests.
public struct MockAPNsConfiguration: Sendable {
    /// Which APNs the mock plays. Only the development (sandbox) environment sends
    /// `apns-unique-id`, the key of a push in Apple's delivery log.
    public enum Environment: String, Sendable, CaseIterable {
        case production
        case development
    }

    /// Address to bind; loopback by default so nothing outside the machine can reach it.
    public var host: String
    /// Port to bind; 0 picks a free one (read it back from `MockAPNsServer.port`).
    public var port: Int
    /// Port of the plain-HTTP admin listener (`/stats`, `/metrics`) on `host`; 0 picks a free
    /// one, `nil` opens none.
    public var adminPort: Int?
    /// Port of the broadcast channel management listener (HTTP/2 over TLS, like APNs'
    /// `api-manage-broadcast` hosts on 2195 and 2196) on `host`; 0 picks a free one, `nil` opens
    /// none. Broadcasts themselves go to `port`, as to APNs.
    public var channelPort: Int?
    /// Listening sockets made elsewhere that the mock serves too, each as a name of Apple's
    /// would answer (`profile --as-apple`'s sealed network).
    public var adoptedListeners: [AdoptedListener] = []
    /// Channels an app may hold (Apple: 10,000 per app per environment).
    public var channelLimit: Int
    /// Simulated devices subscribed to each channel that no accepted start subscribed to, which
    /// an accepted broadcast reaches.
    public var subscribersPerChannel: Int
    /// Broadcasts a second each channel takes before 429 `TooManyRequests`; `nil` for no limit.
    /// Apple calls its limits dynamic; its forum guidance is about one a second.
    public var channelBroadcastsPerSecond: Double? = nil
    /// How long after a broadcast is accepted each subscriber has it (`ChannelStore.fanout`).
    public var broadcastFanout: InjectedLatency = .none
    /// The certificate and key to serve; `nil` makes a self-signed one in memory.
    public var identity: TLSIdentity?
    /// Keys whose tokens are accepted; empty accepts any well-formed ES256 token unverified.
    public var keys: [ProviderKey]
    /// Device-token length in hex digits.
    public var tokenHexLength: Int
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` after a connection's first valid provider token; APNs
    /// was last seen sending 1000.
    public var maxConcurrentStreams: Int
    /// The limit a new connection starts with, until its first valid token: 1, as APNs does with
    /// token authentication. Set it to `maxConcurrentStreams` to skip the one-stream start.
    public var streamsBeforeToken: Int
    /// Whether a rejected push drops the connection's stream limit to 1 until a push is
    /// accepted, as APNs was seen doing (`docs/apns.md` §1.8). Off by default.
    public var dropStreamsAfterRejection: Bool
    /// Which environment's answers to give.
    public var environment: Environment
    /// Which device tokens are unregistered, expire during the run, or belong to another
    /// topic; the same profile given to the workload predicts the answers.
    public var tokenHygiene: TokenHygiene
    /// Device-token prefixes answered with a chosen reason (`--token-rule 410=Unregistered`).
    public var tokenRules: [TokenRule]
    /// Device tokens (lowercase hex) unregistered since the server started: 410 `Unregistered`.
    public var unregisteredTokens: Set<String>
    /// Device tokens that die while the mock runs, as the devices behind it decide (`profile`
    /// playing the devices): since when a token (lowercase hex) has been unregistered, UNIX
    /// seconds, or `nil` while it lives. Asked after `unregisteredTokens`, on the answering thread.
    public var unregisteredSince: (@Sendable (Substring) -> Int64?)?
    /// Apps (bundle IDs) whose device pushes get 400 `TopicDisallowed`, as for an app APNs does
    /// not allow pushes to.
    public var disallowedTopics: Set<String>
    /// Event-loop threads.
    public var threads: Int
    /// Where accepted pushes are recorded, if anywhere (`pushbench mock --record`).
    public var recorder: PushRecorder?
    /// Latency, errors and stalls injected on purpose.
    public var faults: FaultPlan
    /// Whether a Live Activity push a device would drop gets 400 `MockRejectedLiveActivity`
    /// instead of APNs' 200 (`LiveActivityContent`); it is counted either way.
    public var strictLiveActivityContent: Bool
    /// How many connections, and how long a handshake, the mock allows (`ConnectionLimits`).
    public var limits: ConnectionLimits
    /// The server's idea of now, UNIX seconds; tests move it to expire tokens.
    public var clock: @Sendable () -> Int64

    /// Creates a configuration; the defaults are APNs' observed ones on a free loopback port.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        adminPort: Int? = nil,
        channelPort: Int? = nil,
        channelLimit: Int = 10_000,
        subscribersPerChannel: Int = 1000,
        identity: TLSIdentity? = nil,
        keys: [ProviderKey] = [],
        tokenHexLength: Int = 64,
        maxConcurrentStreams: Int = 1000,
        streamsBeforeToken: Int = 1,
        dropStreamsAfterRejection: Bool = false,
        environment: Environment = .production,
        tokenHygiene: TokenHygiene = .clean,
        tokenRules: [TokenRule] = [],
        unregisteredTokens: Set<String> = [],
        disallowedTopics: Set<String> = [],
        threads: Int = 1,
        recorder: PushRecorder? = nil,
        faults: FaultPlan = .none,
        strictLiveActivityContent: Bool = false,
        limits: ConnectionLimits = ConnectionLimits(),
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.host = host
        self.port = port
        self.adminPort = adminPort
        self.channelPort = channelPort
        self.channelLimit = channelLimit
        self.subscribersPerChannel = subscribersPerChannel
        self.identity = identity
        self.keys = keys
        self.tokenHexLength = tokenHexLength
        self.maxConcurrentStreams = maxConcurrentStreams
        self.streamsBeforeToken = streamsBeforeToken
        self.dropStreamsAfterRejection = dropStreamsAfterRejection
        self.environment = environment
        self.tokenHygiene = tokenHygiene
        self.tokenRules = tokenRules
        self.unregisteredTokens = unregisteredTokens
        self.disallowedTopics = disallowedTopics
        self.threads = threads
        self.recorder = recorder
        self.faults = faults
        self.strictLiveActivityContent = strictLiveActivityContent
        self.limits = limits
        self.clock = clock
    }
}
