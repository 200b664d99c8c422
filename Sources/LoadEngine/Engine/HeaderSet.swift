import Transport
import Wire
import Workload

/// The header blocks a worker sends, one per `apns-priority` (1, 5, 10), and for broadcasts one
/// per channel and priority, all carrying the same bearer; rebuilt only when the provider token
/// changes.
struct HeaderSet {
    private let configuration: LoadConfiguration
    private let authorization: String
    private let expiration: Int64
    private let low: HeaderBlock
    private let normal: HeaderBlock
    private let immediate: HeaderBlock
    /// Broadcast blocks, made at a channel's first broadcast, by `group · 3 + priority index`.
    private var broadcasts: [Int: HeaderBlock] = [:]

    init(_ configuration: LoadConfiguration, bearer: ProviderToken, expiration: Int64) {
        self.configuration = configuration
        authorization = bearer.authorization
        self.expiration = expiration
        func block(_ priority: Int) -> HeaderBlock {
            HeaderBlock(
                lines: Self.lines(
                    configuration,
                    authorization: bearer.authorization,
                    expiration: expiration,
                    priority: priority
                )
            )
        }
        low = block(1)
        normal = block(5)
        immediate = block(10)
    }

    /// The shared header lines of a push at `priority`; for a broadcast (`event` to a channel),
    /// those of its channel instead: `apns-channel-id` and no `apns-topic`, and
    /// `apns-expiration: 0` on a channel that stores nothing, as APNs requires (§3.5.2).
    static func lines(
        _ configuration: LoadConfiguration,
        authorization: String,
        expiration: Int64,
        priority: Int,
        broadcast event: WorkloadEvent? = nil
    )
        -> [String]
    {
        let channel = event.flatMap { $0.isBroadcast ? $0 : nil }
        let stores = channel.map { configuration.scenario.cohorts[$0.cohort].channelStorage != .none } ?? true
        return [
            "authorization: \(authorization)",
            "apns-push-type: \(PushType.liveactivity.rawValue)",
            channel.map { "apns-channel-id: \(configuration.channelIDs[$0.group] ?? "")" }
                ?? "apns-topic: \(configuration.topic)",
            "apns-priority: \(priority)",
            "apns-expiration: \(stores ? expiration : 0)",
            "content-type: application/json",
        ]
    }

    /// The block for `event` sent at `priority`, which scenarios and options keep to 1, 5 or 10.
    mutating func block(for event: WorkloadEvent, priority: Int) -> HeaderBlock {
        guard event.isBroadcast else {
            switch priority {
            case 1: return low
            case 5: return normal
            default: return immediate
            }
        }
        let key = event.group * 3 + (priority == 1 ? 0 : priority == 5 ? 1 : 2)
        if let block = broadcasts[key] { return block }
        let block = HeaderBlock(
            lines: Self.lines(
                configuration,
                authorization: authorization,
                expiration: expiration,
                priority: priority,
                broadcast: event
            )
        )
        broadcasts[key] = block
        return block
    }
}
