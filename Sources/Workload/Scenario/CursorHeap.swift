/// A binary min-heap of group cursors keyed by (time, group): the stream's merge of groups.
///
/// The stream reads the top, emits its events, and then re-keys it in place (`replaceTop`):
/// one sift-down per step instead of a pop and a push, moving entries into a hole rather than
/// swapping them. With a group per activity (deliveries, rides) the heap holds thousands of
/// cursors and this is the stream's main cost.
struct CursorHeap: Sendable {
    private typealias Entry = (timeMs: Int64, order: Int, cursor: Int)
    private var entries: [Entry] = []

    /// The earliest time on the heap.
    var minimumTime: Int64? { entries.first?.timeMs }

    /// The cursor with the earliest key, left on the heap.
    var top: Int? { entries.first?.cursor }

    mutating func push(_ key: (timeMs: Int64, order: Int), cursor: Int) {
        entries.append((key.timeMs, key.order, cursor))
        entries.withUnsafeMutableBufferPointer { heap in
            let item = heap[heap.count - 1]
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.precedes(item, heap[parent]) else { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = item
        }
    }

    /// Gives the top cursor its new key and restores the heap order.
    mutating func replaceTop(_ key: (timeMs: Int64, order: Int)) {
        entries[0].timeMs = key.timeMs
        entries[0].order = key.order
        siftDownFromTop()
    }

    /// Removes the top cursor.
    mutating func removeTop() {
        let last = entries.removeLast()
        guard !entries.isEmpty else { return }
        entries[0] = last
        siftDownFromTop()
    }

    private mutating func siftDownFromTop() {
        entries.withUnsafeMutableBufferPointer { heap in
            let item = heap[0]
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { break }
                let right = left + 1
                let child = right < heap.count && Self.precedes(heap[right], heap[left]) ? right : left
                guard Self.precedes(heap[child], item) else { break }
                heap[parent] = heap[child]
                parent = child
            }
            heap[parent] = item
        }
    }

    @inline(__always)
    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.timeMs != b.timeMs ? a.timeMs < b.timeMs : a.order < b.order
    }
}
