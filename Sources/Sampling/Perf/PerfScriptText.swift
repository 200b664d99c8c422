import Foundation

/// Folds what `perf script -F comm,pid,tid,ip,sym,dso --show-task-events` prints: each sample
/// a line naming the thread (`comm pid/tid`), then its frames leaf first (`\t  ip symbol (library
/// path)`), then a blank line; between them the processes' forks, execs and exits
/// (`PERF_RECORD_FORK(child:tid):(parent:tid)`), by which it follows a process's descendants.
/// It reads line by line and keeps one count per distinct stack, so a long profile's text
/// (hundreds of megabytes) is never held whole.
public struct PerfScriptText {
    private typealias RawFrame = (function: String, library: String)
    private struct RawStack: Hashable {
        var root: String
        var functions: [String] = []
        var libraries: [String] = []
    }

    private let root: (String) -> String?
    private var followed: Set<Int32>?
    private var counts: [RawStack: Int] = [:]
    private var current: RawStack?

    /// A folder of the samples of process `following` and its descendants (every process's when
    /// nil), each stack rooted at `root(comm)`; a sample whose thread `root` returns nil for is
    /// left out.
    public init(following: Int32?, root: @escaping (String) -> String?) {
        self.followed = following.map { [$0] }
        self.root = root
    }

    /// The samples in `text`, folded (see `init(following:root:)` and `folded(demangle:)`).
    public static func fold(
        _ text: String,
        following: Int32? = nil,
        root: @escaping (String) -> String? = { $0 },
        demangle: ([String]) -> [String: String] = { _ in [:] }
    ) -> FoldedStacks {
        var folder = PerfScriptText(following: following, root: root)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { folder.read(line) }
        return folder.folded(demangle: demangle)
    }

    /// The samples in the file at `path`, read a megabyte at a time.
    ///
    /// - Throws: the system's error when the file cannot be read.
    public static func fold(
        fileAt path: String,
        following: Int32?,
        root: @escaping (String) -> String?,
        demangle: ([String]) -> [String: String]
    ) throws -> FoldedStacks {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var folder = PerfScriptText(following: following, root: root)
        var pending = Data()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            pending.append(chunk)
            guard let lastBreak = pending.lastIndex(of: 0x0a) else { continue }
            let text = String(decoding: pending[..<lastBreak], as: UTF8.self)
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) { folder.read(line) }
            pending = Data(pending[(lastBreak + 1)...])
        }
        folder.read(Substring(String(decoding: pending, as: UTF8.self)))
        return folder.folded(demangle: demangle)
    }

    /// Reads one line of perf's output.
    public mutating func read(_ line: Substring) {
        if line.isEmpty {
            finishSample()
        } else if line.first == "\t" || line.first == " " {
            // A frame perf could place in no library is a frame-pointer walk gone astray in
            // code built without frame pointers: it says nothing, and would split stacks that are one.
            guard current != nil, let frame = Self.frame(line), frame.library != "[unknown]" else { return }
            current?.functions.append(frame.function)
            current?.libraries.append(frame.library)
        } else if let event = line.range(of: "PERF_RECORD_") {
            finishSample()
            if line[event.upperBound...].hasPrefix("FORK(") { follow(fork: line[event.upperBound...]) }
        } else {
            finishSample()
            let (comm, pid) = Self.thread(line)
            guard followed.map({ pid.map($0.contains) ?? false }) ?? true else { return }
            current = root(comm).map { RawStack(root: $0) }
        }
    }

    /// `FORK(child:tid):(parent:tid)`: the child is followed when its parent is.
    private mutating func follow(fork: Substring) {
        let numbers = fork.split { !$0.isNumber }.compactMap { Int32($0) }
        guard numbers.count == 4, followed?.contains(numbers[2]) == true else { return }
        followed?.insert(numbers[0])
    }

    /// The stacks read, root first, with Swift's names demangled by `demangle` (given every
    /// distinct mangled name once).
    public mutating func folded(demangle: ([String]) -> [String: String]) -> FoldedStacks {
        finishSample()
        let mangled = Set(counts.keys.flatMap { $0.functions.filter(SwiftDemangler.isMangled) })
        let names = mangled.isEmpty ? [:] : demangle(Array(mangled))
        var stacks = FoldedStacks()
        for (raw, count) in counts {
            let frames = zip(raw.functions, raw.libraries).reversed().map {
                StackFrame(function: names[$0.0] ?? $0.0, library: $0.1)
            }
            stacks.add([StackFrame(function: raw.root, library: "")] + frames, samples: count)
        }
        return stacks
    }

    private mutating func finishSample() {
        if let sample = current, !sample.functions.isEmpty { counts[sample, default: 0] += 1 }
        current = nil
    }

    /// A sample's first line, `comm pid/tid`: the thread's name (which may hold spaces) and its
    /// process's ID.
    static func thread(_ line: Substring) -> (comm: String, pid: Int32?) {
        let words = line.trimmingCharacters(in: .whitespaces)
        guard let space = words.lastIndex(of: " ") else { return (words, nil) }
        let ids = words[words.index(after: space)...]
        return (words[..<space].trimmingCharacters(in: .whitespaces), Int32(ids.prefix { $0 != "/" }))
    }

    /// A frame line: the address, the symbol (which may hold spaces and parentheses), and the
    /// library's path in the last parentheses.
    private static func frame(_ line: Substring) -> RawFrame? {
        let body = line.drop { $0 == "\t" || $0 == " " }
        guard let space = body.firstIndex(of: " ") else { return nil }
        let rest = body[body.index(after: space)...]
        guard rest.last == ")", let open = rest.range(of: " (", options: .backwards) else {
            return (String(rest), "[unknown]")
        }
        let path = rest[open.upperBound..<rest.index(before: rest.endIndex)]
        return (String(rest[..<open.lowerBound]), library(path))
    }

    /// A library's short name: its file name, `kernel` for the kernel's symbols.
    private static func library(_ path: Substring) -> String {
        if path.hasPrefix("[kernel.") { return "kernel" }
        if path.hasPrefix("[") { return String(path) }
        return String(path.split(separator: "/").last ?? path)
    }
}
