/// One frame of a sampled call stack: the function that was running and the library (or
/// executable) its code belongs to, which is what the CPU shares are counted by.
public struct StackFrame: Hashable, Sendable, Comparable {
    /// The function, demangled where a demangler was at hand; `[unknown]` when perf could not
    /// name it.
    public var function: String
    /// The file name of the library or executable (`libnghttp2.so.14.24.1`, `pushbench`,
    /// `python3.11`), `kernel` for the kernel's code, `[unknown]` when perf could not tell, and
    /// empty for a stack's root, the process it was sampled in.
    public var library: String

    /// A frame; characters the folded format reserves (`;` between frames, a line break, and the
    /// backtick between library and function in a library's name) are replaced by spaces.
    public init(function: String, library: String) {
        self.function = Self.clean(function, reserved: [";", "\n", "\r"])
        self.library = Self.clean(library, reserved: [";", "\n", "\r", "`"])
    }

    /// The frame as the folded format writes it: `library`function`, DTrace's notation for a
    /// function and its module, which FlameGraph, inferno and speedscope show as it is; the
    /// function alone when there is no library.
    public var folded: String { library.isEmpty ? function : library + "`" + function }

    /// Reads a frame written by `folded`, or by another tool (no library).
    public init(folded: Substring) {
        if let tick = folded.firstIndex(of: "`") {
            self.init(function: String(folded[folded.index(after: tick)...]), library: String(folded[..<tick]))
        } else {
            self.init(function: String(folded), library: "")
        }
    }

    /// How a flame graph labels the frame: the function, or, for a function perf could not name
    /// (an unexported one in a stripped library), the library in brackets.
    public var label: String {
        function == "[unknown]" && !library.isEmpty ? "[\(library)]" : function
    }

    public static func < (left: StackFrame, right: StackFrame) -> Bool {
        (left.function, left.library) < (right.function, right.library)
    }

    private static func clean(_ text: String, reserved: Set<Character>) -> String {
        guard text.contains(where: reserved.contains) else { return text }
        return String(text.map { reserved.contains($0) ? " " : $0 })
    }
}
