import Wire

/// The three Live Activity payload sizes the hot-path figures are quoted for.
///
/// Each is a realistic football update, not padding: `small` is a score tick (about 150 bytes),
/// `typical` a goal with its alert and a richer content-state (about 400 bytes), `nearLimit` a
/// state carrying the match's event list (just under APNs' 4096-byte limit). The sizes are
/// checked by a test, so a figure labelled "typical" always means the same bytes.
public enum SamplePayload: String, CaseIterable, Sendable {
    case small
    case typical
    case nearLimit = "near_limit"

    /// The payload.
    public var payload: LiveActivityPayload {
        switch self {
        case .small:
            LiveActivityPayload(
                event: .update,
                timestamp: Self.timestamp,
                contentState: .object([
                    JSONMember("homeScore", 1), JSONMember("awayScore", 0), JSONMember("minute", 63),
                    JSONMember("phase", "second_half"),
                ]),
                staleDate: Self.timestamp + 900
            )
        case .typical:
            LiveActivityPayload(
                event: .update,
                timestamp: Self.timestamp,
                contentState: .object([
                    JSONMember("homeTeam", "Borussia Mönchengladbach"), JSONMember("awayTeam", "1. FC Köln"),
                    JSONMember("homeScore", 2), JSONMember("awayScore", 1), JSONMember("minute", 78),
                    JSONMember("phase", "second_half"), JSONMember("possessionHome", 0.57),
                    JSONMember("lastEvent", "⚽️ Goal! Plea (78') assisted by Hofmann"),
                    JSONMember("isLive", true),
                ]),
                staleDate: Self.timestamp + 900,
                relevanceScore: 75,
                alert: .init(title: "GOAL! 2–1", body: "Plea scores in the 78th minute", sound: "default")
            )
        case .nearLimit:
            LiveActivityPayload(
                event: .update,
                timestamp: Self.timestamp,
                contentState: .object([
                    JSONMember("homeScore", 3), JSONMember("awayScore", 2), JSONMember("minute", 90),
                    JSONMember("events", .array((1...46).map(Self.matchEvent))),
                ]),
                staleDate: Self.timestamp + 900,
                relevanceScore: 100
            )
        }
    }

    private static let timestamp: Int64 = 1_790_000_000

    private static func matchEvent(_ number: Int) -> JSONValue {
        .object([
            JSONMember("minute", .integer(Int64(number * 90 / 46))),
            JSONMember("kind", number % 5 == 0 ? "goal" : "chance"),
            JSONMember("text", .string("Angriff über links, Flanke von Müller \(number)")),
        ])
    }
}
