import Transport
import Wire

/// The header blocks a worker sends, one per `apns-priority` (1, 5, 10), all carrying the same
/// bearer; rebuilt only when the provider token changes.
struct HeaderSet {
    private let low: HeaderBlock
    private let normal: HeaderBlock
    private let immediate: HeaderBlock

    init(_ configuration: LoadConfiguration, bearer: ProviderToken, expiration: Int64) {
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

    /// The shared header lines of a push at `priority`.
    static func lines(
        _ configuration: LoadConfiguration,
        authorization: String,
        expiration: Int64,
        priority: Int
    )
        -> [String]
    {
        [
            "authorization: \(authorization)",
            "apns-push-type: \(PushType.liveactivity.rawValue)",
            "apns-topic: \(configuration.topic)",
            "apns-priority: \(priority)",
            "apns-expiration: \(expiration)",
            "content-type: application/json",
        ]
    }

    /// The block for `priority`, which scenarios and options keep to 1, 5 or 10.
    func block(priority: Int) -> HeaderBlock {
        switch priority {
        case 1: low
        case 5: normal
        default: immediate
        }
    }
}
