import Wire
import Workload

/// Produces push `i` of a run: its `/3/device/<token>` path and its encoded `aps` payload.
///
/// Tokens come from a seeded `TokenSet` and states from `MatchUpdateStream`, so the same
/// seed sends the same bytes to the same devices; path and body are written into buffers the
/// engine reuses.
public struct LiveActivityPushSource {
    /// The devices.
    public let tokens: TokenSet
    /// The match whose updates the devices receive.
    public let stream: MatchUpdateStream
    private var encoder = PayloadEncoder(limit: PushType.liveactivity.payloadLimit)
    private static let pathPrefix: [UInt8] = Array("/3/device/".utf8)

    /// How long a shown state stays fresh on the device before it is marked stale, seconds.
    public static let staleAfterSeconds: Int64 = 15 * 60

    /// Creates the source for `count` devices from `seed`.
    public init(seed: UInt64, count: Int) {
        tokens = TokenSet(seed: seed, count: count)
        stream = MatchUpdateStream(seed: seed)
    }

    /// Writes push `index`'s path into `path` and returns its payload bytes, timestamped `now`
    /// (UNIX seconds).
    public mutating func prepare(index: Int, now: Int64, path: inout [UInt8]) throws -> [UInt8] {
        path.removeAll(keepingCapacity: true)
        path.append(contentsOf: Self.pathPrefix)
        tokens.appendHex(at: index, to: &path)
        let update = stream.update(at: index)
        let contentState = JSONValue.object([
            JSONMember("homeScore", .integer(Int64(update.homeScore))),
            JSONMember("awayScore", .integer(Int64(update.awayScore))),
            JSONMember("minute", .integer(Int64(update.minute))),
            JSONMember("lastEvent", .string(update.lastEvent)),
        ])
        let alert =
            update.isGoal
            ? LiveActivityPayload.Alert(
                title: "GOAL! \(update.homeScore)–\(update.awayScore)",
                body: update.lastEvent,
                sound: "default"
            )
            : nil
        try encoder.encode(
            LiveActivityPayload(
                event: .update,
                timestamp: now,
                contentState: contentState,
                staleDate: now + Self.staleAfterSeconds,
                alert: alert
            )
        )
        return encoder.bytes
    }
}
