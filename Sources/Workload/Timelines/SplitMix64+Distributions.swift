extension SplitMix64 {
    /// A uniform double in [0, 1) with 53 random bits.
    @inlinable
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A uniform integer in `range`.
    @inlinable
    public mutating func nextInt(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// Whether an event of probability `p` happens.
    @inlinable
    public mutating func chance(_ p: Double) -> Bool {
        nextUnit() < p
    }
}
