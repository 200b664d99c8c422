extension FoldedStacks {
    /// A function's share of the samples: self (it was the leaf) and total (it was anywhere on
    /// the stack, counted once per sample however deep it recursed).
    public struct FunctionTime: Sendable, Equatable {
        /// The function and its library.
        public var frame: StackFrame
        /// Samples with it as the leaf.
        public var selfSamples: Int
        /// Samples with it anywhere on the stack.
        public var totalSamples: Int
    }

    /// The percent of the samples each class of code took, every class present (0 when none).
    public var shares: [CPUShare: Double] {
        var samples = Dictionary(uniqueKeysWithValues: CPUShare.allCases.map { ($0, 0) })
        for (stack, count) in counts {
            if let leaf = stack.last { samples[CPUShare(of: leaf), default: 0] += count }
        }
        let total = Double(max(totalSamples, 1))
        return samples.mapValues { Double($0) * 100 / total }
    }

    /// The `limit` functions with the most self time, most first (ties by name, so the table is
    /// the same for the same samples). A stack's root, the process, is not a function.
    public func topBySelfTime(_ limit: Int) -> [FunctionTime] {
        var selfSamples: [StackFrame: Int] = [:]
        var totalSamples: [StackFrame: Int] = [:]
        for (stack, count) in counts {
            guard let leaf = stack.last, stack.count > 1 else { continue }
            selfSamples[leaf, default: 0] += count
            for frame in Set(stack.dropFirst()) { totalSamples[frame, default: 0] += count }
        }
        return selfSamples.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(limit).map {
            FunctionTime(frame: $0.key, selfSamples: $0.value, totalSamples: totalSamples[$0.key] ?? $0.value)
        }
    }
}
