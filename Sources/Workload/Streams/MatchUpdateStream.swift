/// The default update stream: one football match followed by many Live Activities.
///
/// Push `i` of a run carries the match state at a point of the match chosen from `(seed, i)`:
/// minute, score, and the last event, with an alert for goals only (as score apps do: goals
/// light up the screen, minute ticks do not). Goals arrive as a Poisson process of about 2.7 per
/// 90 minutes, the long-run average of top-flight football (Dixon and Coles, 1997). The full
/// scenario model (kick-off, half-time, cards, `start` and `end` events) belongs to the workload
/// issue; this stream gives the foundation real, varied payloads.
public struct MatchUpdateStream: Sendable {
    /// The seed every update is derived from.
    public let seed: UInt64
    /// The home team's display name.
    public let homeTeam: String
    /// The away team's display name.
    public let awayTeam: String

    /// Expected goals per 90 minutes, both teams together.
    public static let goalsPerMatch = 2.7

    /// Creates the stream for one match.
    public init(seed: UInt64, homeTeam: String = "Málaga", awayTeam: String = "Borussia \"BVB\" Dortmund") {
        self.seed = seed
        self.homeTeam = homeTeam
        self.awayTeam = awayTeam
    }

    /// The update sent with push `index`.
    public func update(at index: Int) -> MatchUpdate {
        var random = SplitMix64(seed: seed ^ 0x5DEE_CE66_D1CE_5EED, index: UInt64(index))
        let minute = Int(random.next() % 90) + 1
        var home = 0
        var away = 0
        // A goal in each minute with probability goalsPerMatch / 90: a discretised Poisson process.
        let threshold = UInt64(Double(UInt64.max) * (Self.goalsPerMatch / 90.0))
        var lastGoalMinute: Int? = nil
        var lastScorerHome = false
        for m in 1...minute where random.next() < threshold {
            let homeScored = random.next() & 1 == 0
            if homeScored { home += 1 } else { away += 1 }
            lastGoalMinute = m
            lastScorerHome = homeScored
        }
        let isGoalNow = lastGoalMinute == minute
        let lastEvent: String
        if let goalMinute = lastGoalMinute {
            lastEvent = "Goal! \(lastScorerHome ? homeTeam : awayTeam) \(goalMinute)'"
        } else {
            lastEvent = "Kick-off"
        }
        return MatchUpdate(
            minute: minute,
            homeScore: home,
            awayScore: away,
            lastEvent: lastEvent,
            isGoal: isGoalNow
        )
    }
}

/// One state of a match as a Live Activity shows it.
public struct MatchUpdate: Sendable, Equatable {
    /// Match minute, 1 to 90.
    public var minute: Int
    /// Home team goals.
    public var homeScore: Int
    /// Away team goals.
    public var awayScore: Int
    /// A human-readable line about the latest event.
    public var lastEvent: String
    /// Whether a goal was scored in this minute (such updates carry an alert).
    public var isGoal: Bool
}
