/// A fast, seeded, splittable pseudo-random generator (Steele, Lea and Flood's SplitMix64).
///
/// PushBench derives every synthetic value from `(seed, index)` so that runs are reproducible
/// and shards can produce disjoint parts of one population without coordination. The system
/// generator is neither seedable nor cheap enough for the hot path.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    /// Creates a generator whose sequence is fully determined by `seed`.
    @inlinable
    public init(seed: UInt64) {
        self.state = seed
    }

    /// Creates the generator for element `index` of a seeded population, so element `i` does not
    /// depend on how many elements were drawn before it.
    @inlinable
    public init(seed: UInt64, index: UInt64) {
        self.state = SplitMix64.mix(seed &+ SplitMix64.mix(index &+ 0x632B_E59B_D9B4_E019))
    }

    /// Returns the next 64 random bits.
    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// The SplitMix64 finaliser: a bijective avalanche of 64 bits.
    @inlinable
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
