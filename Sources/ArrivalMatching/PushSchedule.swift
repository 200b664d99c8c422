import Workload

/// What a sender was asked to send, as the arrival book matches arrivals against it: each
/// token's events in order, each with its due time (microseconds after the start), its
/// identity (the number `EventTag` puts in its payload) and its kind (`aps.event`: an update
/// never answers an end, nor the reverse).
///
/// A sender's identities are its events' numbers, one token each; a service's are its calls'
/// numbers, one call reaching many tokens. Either way a token's identities rise with its
/// events, so a tagged push finds its place among them by binary search.
///
/// Each token is a slot. A sender's tokens are any text, so their slots are found by a
/// dictionary of their hex. A service's are the fleet's own (`TokenMint`): a token names its
/// device, and the device is the slot, with no dictionary and no string kept. Events are added
/// in any order and kept flat (thirteen bytes each: 28 measured at a million devices while the
/// arrays grow); `sealed()` groups them by slot for the book (thirteen bytes an event and four
/// a slot).
public struct PushSchedule: Sendable {
    /// Which slot a token is.
    private var slots: TokenSlots
    /// Each event's slot, due time and identity, in the order added.
    private var eventSlots: [Int32] = []
    private var eventDues: [Int64] = []
    private var eventIdentities: [Int32] = []
    private var eventPhases: [LifecyclePhase] = []
    /// Identities in the schedule: events for a sender, calls for a service. Tags are below it.
    public private(set) var identityCount = 0

    /// An empty schedule whose tokens are any text.
    public init() { slots = TokenSlots(mint: nil, count: 0) }

    /// An empty schedule for `devices` devices whose update tokens `mint` made: device `d`'s
    /// tokens (its first and its rotated one) are slot `d`.
    public init(devices: Int, mint: TokenMint) { slots = TokenSlots(mint: mint, count: devices) }

    /// Slots so far: distinct tokens.
    public var tokens: Int { slots.count }

    /// Events in the schedule: pushes it asks for.
    public var events: Int { eventSlots.count }

    /// Adds `token`'s next event, due `dueMicroseconds` after the start, whose payload carries
    /// `identity` (the sender's event number, or the service's call number) and `phase` as its
    /// `aps.event`. Identities must not fall from one call to the next.
    /// - Returns: whether the token is new to the schedule.
    @discardableResult
    public mutating func add(
        token: String,
        dueMicroseconds due: Int64,
        identity: Int,
        phase: LifecyclePhase = .update
    ) -> Bool {
        precondition(slots.mint == nil, "a schedule of minted tokens adds by device")
        let known = slots.byText[token]
        let slot = known ?? Int32(slots.count)
        if known == nil {
            slots.byText[token] = slot
            slots.count += 1
        }
        append(slot: slot, due: due, identity: identity, phase: phase)
        return known == nil
    }

    /// Adds the next event of `device`'s update token, for a schedule of minted tokens.
    public mutating func add(device: Int, dueMicroseconds due: Int64, identity: Int, phase: LifecyclePhase = .update) {
        precondition(slots.mint != nil && device < slots.count, "device \(device) outside the schedule")
        append(slot: Int32(device), due: due, identity: identity, phase: phase)
    }

    private mutating func append(slot: Int32, due: Int64, identity: Int, phase: LifecyclePhase) {
        eventSlots.append(slot)
        eventDues.append(due)
        eventIdentities.append(Int32(identity))
        eventPhases.append(phase)
        identityCount = max(identityCount, identity + 1)
    }

    /// The schedule grouped by slot, each slot's events in the order added.
    func sealed() -> SealedSchedule {
        SealedSchedule(
            slots,
            identityCount: identityCount,
            eventSlots: eventSlots,
            dues: eventDues,
            identities: eventIdentities,
            phases: eventPhases
        )
    }
}

/// Which slot a token is: by a dictionary of a sender's tokens' hex, or, for the fleet's own
/// tokens, by what the token says (its device).
struct TokenSlots: Sendable {
    var byText: [String: Int32] = [:]
    /// The mint whose update tokens name their device's slot, for a service.
    let mint: TokenMint?
    var count: Int

    /// The slot of `token`, if the schedule sends to it.
    func slot(of token: String) -> Int? {
        guard let mint else { return byText[token].map(Int.init) }
        guard let reading = mint.read(token), reading.kind == .update, reading.device < count else { return nil }
        return reading.device
    }
}

/// A schedule's events grouped by slot (a counting sort, stable), so that slot `s`'s `k`-th
/// event is event `firstEvent[s] + k`: what the arrival book reads on every push.
struct SealedSchedule: Sendable {
    private let slots: TokenSlots
    let identityCount: Int
    /// Where each slot's events begin; one more entry than slots.
    private let firstEvent: [Int32]
    private let dues: [Int64]
    private let identities: [Int32]
    private let phases: [LifecyclePhase]

    init(
        _ slots: TokenSlots,
        identityCount: Int,
        eventSlots: [Int32],
        dues: [Int64],
        identities: [Int32],
        phases: [LifecyclePhase]
    ) {
        self.slots = slots
        self.identityCount = identityCount
        var first = [Int32](repeating: 0, count: slots.count + 1)
        for slot in eventSlots { first[Int(slot) + 1] += 1 }
        for slot in 0..<slots.count { first[slot + 1] += first[slot] }
        var next = first
        var sortedDues = [Int64](repeating: 0, count: eventSlots.count)
        var sortedIdentities = [Int32](repeating: 0, count: eventSlots.count)
        var sortedPhases = [LifecyclePhase](repeating: .update, count: eventSlots.count)
        for (event, slot) in eventSlots.enumerated() {
            let place = Int(next[Int(slot)])
            next[Int(slot)] += 1
            sortedDues[place] = dues[event]
            sortedIdentities[place] = identities[event]
            sortedPhases[place] = phases[event]
        }
        firstEvent = first
        self.dues = sortedDues
        self.identities = sortedIdentities
        self.phases = sortedPhases
    }

    var tokens: Int { slots.count }
    var events: Int { dues.count }

    func slot(of token: String) -> Int? { slots.slot(of: token) }

    /// Where `slot`'s events are among all the schedule's.
    func events(of slot: Int) -> Range<Int> { Int(firstEvent[slot])..<Int(firstEvent[slot + 1]) }

    /// The slot whose events hold event `event` (an index among all the schedule's).
    func slot(ofEvent event: Int) -> Int {
        // The first slot whose events end after `event`: empty slots before it end where it begins.
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if Int(firstEvent[middle + 1]) <= event { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The place `k` among `slot`'s events of the one whose identity is `identity`, if it has one.
    func place(of identity: Int, slot: Int) -> Int? {
        let range = events(of: slot)
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = (low + high) / 2
            if Int(identities[middle]) < identity { low = middle + 1 } else { high = middle }
        }
        return low < range.upperBound && Int(identities[low]) == identity ? low - range.lowerBound : nil
    }

    /// The identity of event `event` (an index among all the schedule's).
    func identity(ofEvent event: Int) -> Int { Int(identities[event]) }

    /// The due time of event `event`, microseconds.
    func due(ofEvent event: Int) -> Int64 { dues[event] }

    /// The kind of push event `event` asks for: its `aps.event`.
    func phase(ofEvent event: Int) -> LifecyclePhase { phases[event] }
}
