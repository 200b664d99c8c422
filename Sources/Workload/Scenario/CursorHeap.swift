/// A binary min-heap of group cursors keyed by (time, group): the stream's merge of groups.
struct CursorHeap: Sendable {
    private var entries: [(timeMs: Int64, order: Int, cursor: Int)] = []

    var isEmpty: Bool { entries.isEmpty }

    /// The earliest time on the heap.
    var minimumTime: Int64? { entries.first?.timeMs }

    mutating func push(_ key: (timeMs: Int64, order: Int), cursor: Int) {
        entries.append((key.timeMs, key.order, cursor))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the cursor with the earliest key.
    mutating func pop() -> Int? {
        guard let top = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < entries.count else { break }
                let right = left + 1
                let child = right < entries.count && precedes(right, left) ? right : left
                guard precedes(child, parent) else { break }
                entries.swapAt(child, parent)
                parent = child
            }
        }
        return top.cursor
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        (entries[a].timeMs, entries[a].order) < (entries[b].timeMs, entries[b].order)
    }
}
