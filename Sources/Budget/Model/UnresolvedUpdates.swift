/// The updates each activity received that no shown state has covered yet, as singly linked
/// lists in one pool, so display lag is exact without an allocation per update.
///
/// An activity's list is in send order; a state shown for an update sent at `s` covers every
/// entry sent at or before `s`, a prefix of the list.
struct UnresolvedUpdates {
    private(set) var sendMs: [Int64] = []
    private(set) var label: [Int32] = []
    private var next: [Int32] = []
    private var free: Int32 = -1

    /// Appends an entry after `tail` (or as a new list when `tail` is -1) and returns its index.
    mutating func append(sendMs time: Int64, label name: Int32, after tail: Int32) -> Int32 {
        let index: Int32
        if free >= 0 {
            index = free
            free = next[Int(index)]
            sendMs[Int(index)] = time
            label[Int(index)] = name
            next[Int(index)] = -1
        } else {
            index = Int32(sendMs.count)
            sendMs.append(time)
            label.append(name)
            next.append(-1)
        }
        if tail >= 0 { next[Int(tail)] = index }
        return index
    }

    /// Frees entry `index` and returns the one after it (-1 at the end).
    mutating func remove(_ index: Int32) -> Int32 {
        let following = next[Int(index)]
        next[Int(index)] = free
        free = index
        return following
    }
}
