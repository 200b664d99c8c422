/// A football match as its Live Activity sees it: kick-off, a tick per minute, goals and cards
/// as they happen, half-time, and the final whistle that ends the activity.
///
/// Sources of the numbers: two 45-minute halves and a half-time break of at most 15 minutes
/// (IFAB Laws of the Game, Law 7); stoppage time of 1–4 minutes in the first half and 3–8 in
/// the second (typical of recent top-league matches); goals as a Poisson process of 2.7 per 90
/// minutes, the long-run top-flight average (Dixon and Coles, 1997); cards as a Poisson process
/// of 4 per match, the order of top European league averages. Both rates are per match
/// including stoppage time, so each played minute has probability rate / 98 (the expected
/// number of minutes played). State: `homeScore`, `awayScore`, `minute`, `period` (1, 2, 3 half-time, 4 full
/// time).
struct FootballTimeline: Sendable {
    static let goalsPerMatch = 2.7
    static let cardsPerMatch = 4.0
    static let halfTimeBreakMs: Int64 = 15 * 60_000
    /// 90 minutes plus the mean stoppage of 2.5 and 5.5 minutes.
    static let expectedMinutesPlayed = 98.0

    private enum Stage { case kickOff, playing, halfTime, secondHalf, fullTime, done }

    private var stage = Stage.kickOff
    private var half = 1
    private var minute = 0
    private var halfMinutes: Int
    private var secondHalfMinutes: Int
    private var halfStartMs: Int64 = 0
    private var goalAtMs: Int64? = nil
    private var cardAtMs: Int64? = nil
    private var home: Int32 = 0
    private var away: Int32 = 0

    init(random: inout SplitMix64) {
        halfMinutes = 45 + random.nextInt(in: 1...4)
        secondHalfMinutes = 45 + random.nextInt(in: 3...8)
    }

    /// The state before kick-off, shown by the `start` push.
    static let initialState = ContentState(0, 0, 0, 1)

    private var clockMinute: Int32 { Int32(half == 1 ? minute : 45 + minute) }
    private var minuteEndMs: Int64 { halfStartMs + Int64(minute + 1) * 60_000 }

    private func step(
        _ offset: Int64,
        _ kind: EventKind,
        period: Int32,
        phase: LifecyclePhase = .update
    ) -> TimelineStep {
        TimelineStep(
            offsetMs: offset,
            kind: kind,
            phase: phase,
            state: ContentState(home, away, clockMinute, period),
            alert: kind == .goal || phase == .end
        )
    }

    /// Draws this minute's goal and card (each at most one; a second in one minute is rare
    /// enough to ignore at these rates).
    private mutating func beginMinute(_ random: inout SplitMix64) {
        let start = halfStartMs + Int64(minute) * 60_000
        goalAtMs =
            random.chance(Self.goalsPerMatch / Self.expectedMinutesPlayed)
            ? start + Int64(random.nextUnit() * 59_000) : nil
        cardAtMs =
            random.chance(Self.cardsPerMatch / Self.expectedMinutesPlayed)
            ? start + Int64(random.nextUnit() * 59_000) : nil
    }

    mutating func next(_ random: inout SplitMix64) -> TimelineStep? {
        switch stage {
        case .kickOff:
            stage = .playing
            beginMinute(&random)
            return step(0, .kickOff, period: 1)
        case .playing:
            if let goal = goalAtMs, goal <= cardAtMs ?? .max {
                goalAtMs = nil
                if random.next() & 1 == 0 { home += 1 } else { away += 1 }
                return step(goal, .goal, period: Int32(half))
            }
            if let card = cardAtMs {
                cardAtMs = nil
                return step(card, .card, period: Int32(half))
            }
            let tick = minuteEndMs
            minute += 1
            let ticked = step(tick, .minute, period: Int32(half))
            if minute == (half == 1 ? halfMinutes : secondHalfMinutes) {
                stage = half == 1 ? .halfTime : .fullTime
            } else {
                beginMinute(&random)
            }
            return ticked
        case .halfTime:
            stage = .secondHalf
            return step(halfStartMs + Int64(minute) * 60_000, .halfTime, period: 3)
        case .secondHalf:
            halfStartMs += Int64(minute) * 60_000 + Self.halfTimeBreakMs
            half = 2
            minute = 0
            stage = .playing
            beginMinute(&random)
            return step(halfStartMs, .kickOff, period: 2)
        case .fullTime:
            stage = .done
            return step(halfStartMs + Int64(minute) * 60_000, .fullTime, period: 4, phase: .end)
        case .done:
            return nil
        }
    }
}
