/// What a sender was asked to send, as the arrival book matches arrivals against it: each
/// token's events in order, each with its due time (microseconds after the start) and its
/// identity, the number `EventTag` puts in its payload.
///
/// A sender's identities are its events' numbers, one token each; a service's are its calls'
/// numbers, one call reaching many tokens. Either way a token's identities rise with its
/// events, so a tagged push finds its place among them by binary search. Tokens are held once
/// each, with an index into the due times, so a million events to a hundred thousand tokens
/// take about 20 MB.
public struct PushSchedule: Sendable {
    /// Each token's index in `dueMicroseconds`, by its hex text.
    private(set) var slots: [String: Int] = [:]
    /// Each token's due times, in its events' order.
    private(set) var dueMicroseconds: [[Int64]] = []
    /// Each token's events' identities, rising, beside their due times.
    private var identities: [[Int32]] = []
    /// Events in the schedule: pushes it asks for.
    public private(set) var events = 0
    /// Identities in the schedule: events for a sender, calls for a service. Tags are below it.
    public private(set) var identityCount = 0

    /// An empty schedule.
    public init() {}

    /// Adds `token`'s next event, due `dueMicroseconds` after the start, whose payload carries
    /// `identity`: the sender's event number, or the service's call number. Identities must not
    /// fall from one call to the next.
    /// - Returns: whether the token is new to the schedule.
    @discardableResult
    public mutating func add(token: String, dueMicroseconds due: Int64, identity: Int) -> Bool {
        events += 1
        identityCount = max(identityCount, identity + 1)
        if let slot = slots[token] {
            dueMicroseconds[slot].append(due)
            identities[slot].append(Int32(identity))
            return false
        }
        slots[token] = dueMicroseconds.count
        dueMicroseconds.append([due])
        identities.append([Int32(identity)])
        return true
    }

    /// The number of distinct tokens.
    public var tokens: Int { dueMicroseconds.count }

    /// The slot of `token`, if the schedule sends to it.
    func slot(of token: String) -> Int? { slots[token] }

    /// The place `k` among `slot`'s events of the one whose identity is `identity`, if it has one.
    func place(of identity: Int, slot: Int) -> Int? {
        let list = identities[slot]
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if Int(list[middle]) < identity { low = middle + 1 } else { high = middle }
        }
        return low < list.count && Int(list[low]) == identity ? low : nil
    }

    /// The identity of `slot`'s `k`-th event.
    func identity(slot: Int, k: Int) -> Int { Int(identities[slot][k]) }

    /// How many events `slot`'s token has.
    func eventCount(slot: Int) -> Int { dueMicroseconds[slot].count }

    /// The `k`-th due time of `slot`, if the token has that many events.
    func due(slot: Int, k: Int) -> Int64? {
        let times = dueMicroseconds[slot]
        return k < times.count ? times[k] : nil
    }
}
