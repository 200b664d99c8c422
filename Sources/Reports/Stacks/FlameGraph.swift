import Sampling

/// A flame graph of folded stacks: a box for each frame of each distinct path from the root,
/// as wide as the samples that passed through it, its callees stacked on it, siblings in name
/// order (Brendan Gregg's layout: the x axis is not time).
public struct FlameGraph: Sendable {
    /// One frame on one path.
    public struct Box: Sendable, Equatable {
        /// The frame; the bottom box is `all`, with no library.
        public var frame: StackFrame
        /// 0 for `all`, 1 for the processes, then each call deeper.
        public var depth: Int
        /// Where it starts, in samples from the left edge, and how many samples it spans.
        public var start: Int
        public var samples: Int
        /// Samples in which this frame was the leaf: its own code running.
        public var selfSamples: Int
    }

    /// Every box, callers before callees.
    public private(set) var boxes: [Box] = []
    /// The samples the graph spans: the width of `all`.
    public let totalSamples: Int
    /// The deepest box's depth.
    public private(set) var maxDepth = 0

    /// Lays out `stacks`.
    public init(_ stacks: FoldedStacks) {
        totalSamples = stacks.totalSamples
        boxes.append(
            Box(frame: StackFrame(function: "all", library: ""), depth: 0, start: 0, samples: 0, selfSamples: 0)
        )
        var open: [Int] = [0]
        var offset = 0
        for (stack, count) in stacks.counts.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            var shared = 0
            while shared < stack.count, shared + 1 < open.count, boxes[open[shared + 1]].frame == stack[shared] {
                shared += 1
            }
            open.removeLast(open.count - shared - 1)
            for frame in stack[shared...] {
                open.append(boxes.count)
                boxes.append(Box(frame: frame, depth: open.count - 1, start: offset, samples: 0, selfSamples: 0))
            }
            for index in open { boxes[index].samples += count }
            boxes[open[open.count - 1]].selfSamples += count
            maxDepth = max(maxDepth, stack.count)
            offset += count
        }
    }
}

extension StackFrame {
    /// The class of code the frame is, for its colour; the roots (`all`, a process) are none.
    var share: CPUShare? { library.isEmpty ? nil : CPUShare(of: self) }
}
