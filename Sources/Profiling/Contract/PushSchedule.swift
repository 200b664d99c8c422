/// What a sender was asked to send, as the lag book matches arrivals against it: each token's
/// due times in the order of its events, microseconds after the start.
///
/// A push that carries its event's number (`EventTag`) answers that event; one that does not
/// (its sender rebuilt the payload) answers its token's first event not yet answered. Tokens are
/// held once each, with an index into the due times, and each event's token and place among its
/// token's events by number, so a million events to a hundred thousand tokens take about 24 MB.
public struct PushSchedule: Sendable {
    /// Each token's index in `dueMicroseconds`, by its hex text.
    private(set) var slots: [String: Int] = [:]
    /// Each token's due times, in its events' order.
    private(set) var dueMicroseconds: [[Int64]] = []
    /// Each event's token (its slot) and place among the token's events, by event number.
    private var places: [(slot: Int32, k: Int32)] = []
    /// Events in the schedule.
    public var events: Int { places.count }

    /// An empty schedule.
    public init() {}

    /// Adds `token`'s next event, due `dueMicroseconds` after the start.
    /// - Returns: whether the token is new to the schedule.
    @discardableResult
    mutating func add(token: String, dueMicroseconds due: Int64) -> Bool {
        if let slot = slots[token] {
            places.append((Int32(slot), Int32(dueMicroseconds[slot].count)))
            dueMicroseconds[slot].append(due)
            return false
        }
        slots[token] = dueMicroseconds.count
        places.append((Int32(dueMicroseconds.count), 0))
        dueMicroseconds.append([due])
        return true
    }

    /// The number of distinct tokens.
    public var tokens: Int { dueMicroseconds.count }

    /// The slot of `token`, if the schedule sends to it.
    func slot(of token: String) -> Int? { slots[token] }

    /// The token's slot and place `k` among its events of event number `event`, if the
    /// schedule has that many events.
    func place(ofEvent event: Int) -> (slot: Int, k: Int)? {
        event >= 0 && event < places.count ? (Int(places[event].slot), Int(places[event].k)) : nil
    }

    /// How many events `slot`'s token has.
    func eventCount(slot: Int) -> Int { dueMicroseconds[slot].count }

    /// The `k`-th due time of `slot`, if the token has that many events.
    func due(slot: Int, k: Int) -> Int64? {
        let times = dueMicroseconds[slot]
        return k < times.count ? times[k] : nil
    }
}
