/// What a sender was asked to send, as the lag book matches arrivals against it: each token's
/// due times in the order of its events, microseconds after the start.
///
/// The token's k-th push to arrive answers its k-th event. Tokens are held once each, with an
/// index into the due times, so a million events to a hundred thousand tokens take about 16 MB.
public struct PushSchedule: Sendable {
    /// Each token's index in `dueMicroseconds`, by its hex text.
    private(set) var slots: [String: Int] = [:]
    /// Each token's due times, in its events' order.
    private(set) var dueMicroseconds: [[Int64]] = []
    /// Events in the schedule.
    public private(set) var events = 0

    /// An empty schedule.
    public init() {}

    /// Adds `token`'s next event, due `dueMicroseconds` after the start.
    /// - Returns: whether the token is new to the schedule.
    @discardableResult
    mutating func add(token: String, dueMicroseconds due: Int64) -> Bool {
        events += 1
        if let slot = slots[token] {
            dueMicroseconds[slot].append(due)
            return false
        }
        slots[token] = dueMicroseconds.count
        dueMicroseconds.append([due])
        return true
    }

    /// The number of distinct tokens.
    public var tokens: Int { dueMicroseconds.count }

    /// The slot of `token`, if the schedule sends to it.
    func slot(of token: String) -> Int? { slots[token] }

    /// The `k`-th due time of `slot`, if the token has that many events.
    func due(slot: Int, k: Int) -> Int64? {
        let times = dueMicroseconds[slot]
        return k < times.count ? times[k] : nil
    }
}
