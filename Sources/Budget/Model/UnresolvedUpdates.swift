/// The updates each activity received that no shown state has covered yet, as singly linked
/// lists in one pool, so display lag is exact without an allocation per update.
///
/// An activity's list is in send order; a state shown for an update sent at `s` covers every
/// entry sent at or before `s`, a prefix of the list.
struct UnresolvedUpdates: ~Copyable {
    /// One update waiting for a shown state.
    struct Entry {
        var sendMs: Int64
        var label: Int32
        var next: Int32
    }

    private var entries = ScratchBuffer<Entry>(count: 1024, repeating: Entry(sendMs: 0, label: 0, next: -1))
    private var used: Int32 = 0
    private var free: Int32 = -1

    subscript(index: Int32) -> Entry {
        @inline(__always) get { entries[Int(index)] }
    }

    /// Appends an entry after `tail` (or as a new list when `tail` is -1) and returns its index.
    mutating func append(sendMs: Int64, label: Int32, after tail: Int32) -> Int32 {
        let index: Int32
        if free >= 0 {
            index = free
            free = entries[Int(index)].next
        } else {
            index = used
            used += 1
            entries.grow(toAtLeast: Int(used))
        }
        entries[Int(index)] = Entry(sendMs: sendMs, label: label, next: -1)
        if tail >= 0 { entries[Int(tail)].next = index }
        return index
    }

    /// Frees entry `index` and returns the one after it (-1 at the end).
    mutating func remove(_ index: Int32) -> Int32 {
        let following = entries[Int(index)].next
        entries[Int(index)].next = free
        free = index
        return following
    }
}
