/// The requests a connection has handed to nghttp2 and not yet seen closed.
///
/// Every push enters and leaves this set once, so both are O(1) without hashing: each slot
/// keeps its position (`StreamSlot.openIndex`), and a leaving slot's place is taken by the last.
/// A stream's slot is found through nghttp2's stream user data, not by stream ID, so nothing
/// here is keyed. (A dictionary by stream ID cost a push about 1% of its CPU in hashing.)
struct OpenStreams {
    private var slots: [StreamSlot] = []

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }

    /// The open requests, in no particular order.
    var all: [StreamSlot] { slots }
    /// The open requests in the order they were sent (by stream ID).
    var inStreamOrder: [StreamSlot] { slots.sorted { $0.streamID < $1.streamID } }

    mutating func insert(_ slot: StreamSlot) {
        slot.openIndex = slots.count
        slots.append(slot)
    }

    /// Takes `slot` out and returns it, now held by the caller (this set may have been its last
    /// owner, and nghttp2's pointer to it owns nothing); `nil` when it was not in this set.
    mutating func remove(_ slot: StreamSlot) -> StreamSlot? {
        let index = slot.openIndex
        guard index < slots.count, slots[index] === slot else { return nil }
        var removed = slots.removeLast()
        if index < slots.count {
            swap(&slots[index], &removed)
            slots[index].openIndex = index
        }
        removed.openIndex = Int.max
        return removed
    }

    mutating func removeAll() {
        for slot in slots { slot.openIndex = Int.max }
        slots.removeAll(keepingCapacity: true)
    }
}
