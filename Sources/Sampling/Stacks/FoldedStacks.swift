/// Sampled call stacks counted by stack: what a flame graph is drawn from, and Brendan Gregg's
/// folded format (`root;caller;leaf count`, one stack a line), which FlameGraph, inferno and
/// speedscope read.
public struct FoldedStacks: Sendable, Equatable {
    /// Each distinct stack, root first, and how many samples caught it.
    public private(set) var counts: [[StackFrame]: Int] = [:]
    /// Samples in all.
    public private(set) var totalSamples = 0

    /// No samples.
    public init() {}

    /// Counts `samples` more of `stack` (root first); an empty stack counts nothing.
    public mutating func add(_ stack: [StackFrame], samples: Int = 1) {
        guard !stack.isEmpty, samples > 0 else { return }
        counts[stack, default: 0] += samples
        totalSamples += samples
    }

    /// The folded text: one line per stack, sorted, so the same samples always give the same file.
    public var text: String {
        counts.map { stack, count in stack.map(\.folded).joined(separator: ";") + " \(count)" }
            .sorted().joined(separator: "\n") + (counts.isEmpty ? "" : "\n")
    }

    /// Reads folded text (this type's, or any tool's: a frame without a library gets `[unknown]`).
    ///
    /// - Throws: `FoldedStacksError` naming the first line that is not a stack and a count.
    public init(text: String) throws {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            guard let space = line.lastIndex(of: " "), let count = Int(line[line.index(after: space)...]),
                count > 0, space > line.startIndex
            else { throw FoldedStacksError(line: index + 1, text: String(line.prefix(80))) }
            add(line[..<space].split(separator: ";").map { StackFrame(folded: $0) }, samples: count)
        }
    }
}

/// A line of a folded file that is not `frame;frame;... count`.
public struct FoldedStacksError: Error, CustomStringConvertible {
    /// The line, counted from 1.
    public let line: Int
    /// Its start.
    public let text: String

    public var description: String { "line \(line) is not a folded stack (frames, a space and a count): \(text)" }
}
