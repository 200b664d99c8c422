/// Plain values in memory the model manages itself, so a write on the hot path is a store,
/// not a copy-on-write check: a Swift array in a struct pays a uniqueness test per mutation,
/// which cost more than the budget rules themselves.
///
/// Non-copyable, so exactly one owner frees it.
struct ScratchBuffer<Element: BitwiseCopyable>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    /// Elements allocated and initialized.
    private(set) var count: Int
    private let fill: Element

    /// `count` copies of `value`.
    init(count: Int, repeating value: Element) {
        base = .allocate(capacity: max(count, 1))
        base.initialize(repeating: value, count: count)
        self.count = count
        fill = value
    }

    deinit {
        base.deallocate()
    }

    subscript(index: Int) -> Element {
        @inline(__always) get { base[index] }
        @inline(__always) nonmutating set { base[index] = newValue }
    }

    /// Grows to at least `needed` elements (doubling, so appends stay amortized O(1)); new ones
    /// are the fill value.
    mutating func grow(toAtLeast needed: Int) {
        guard needed > count else { return }
        let capacity = max(needed, count * 2)
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        grown.moveInitialize(from: base, count: count)
        (grown + count).initialize(repeating: fill, count: capacity - count)
        base.deallocate()
        base = grown
        count = capacity
    }

    /// The first `prefix` elements as an array.
    func array(prefix: Int) -> [Element] {
        Array(UnsafeBufferPointer(start: base, count: min(prefix, count)))
    }
}
