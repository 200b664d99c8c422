/// A flash sale: a countdown every minute for 30 minutes, the opening, stock every 30 seconds
/// until sold out or 20 minutes have passed, then the close.
///
/// Illustrative numbers, not sourced: 500–5000 items, sold at a rate that empties the stock in
/// 5–40 minutes (so some sales close with items left). State: `secondsToOpen`, `itemsLeft`,
/// `discountPercent`, `open` (0 or 1).
struct FlashSaleTimeline: Sendable {
    private var nowMs: Int64 = 0
    private var countdownTicks = 0
    private var minutesToOpen = 30
    private var items: Int
    private let soldPerTick: Int
    private let discount: Int32
    private var open = false
    private var finished = false

    init(random: inout SplitMix64) {
        items = random.nextInt(in: 500...5000)
        soldPerTick = max(1, items / (2 * random.nextInt(in: 5...40)))
        discount = Int32(random.nextInt(in: 2...7) * 10)
    }

    static let initialState = ContentState(1800, 0, 0, 0)

    private func step(_ kind: EventKind, phase: LifecyclePhase = .update, alert: Bool = false) -> TimelineStep {
        TimelineStep(
            offsetMs: nowMs,
            kind: kind,
            phase: phase,
            state: ContentState(Int32(minutesToOpen * 60), Int32(items), discount, open ? 1 : 0),
            alert: alert
        )
    }

    mutating func next(_ random: inout SplitMix64) -> TimelineStep? {
        if finished { return nil }
        if !open {
            nowMs = Int64(countdownTicks) * 60_000
            minutesToOpen = 30 - countdownTicks
            countdownTicks += 1
            guard minutesToOpen == 0 else { return step(.countdown) }
            open = true
            return step(.status, alert: true)
        }
        nowMs += 30_000
        items = max(0, items - soldPerTick)
        if items == 0 || nowMs >= Int64(50 * 60_000) {
            finished = true
            return step(.finish, phase: .end, alert: true)
        }
        return step(.stock)
    }
}
