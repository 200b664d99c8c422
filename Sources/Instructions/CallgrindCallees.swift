/// What one function called, read from a callgrind output file: for each callee, how often it
/// was called from there and the instructions those calls executed, inclusive of everything
/// they called in turn.
///
/// `pushbench hotpath --instructions` collects only inside `PushStageWorkload.runCountedPushes`
/// and reads its callees this way: each stage is a function it calls, so a stage's count is its
/// calls' inclusive cost, with nothing of the set-up, the warm-up or the peer in it.
public struct CallgrindCallees: Sendable, Equatable {
    /// One callee of the caller.
    public struct Callee: Sendable, Equatable {
        /// Its symbol, as callgrind names it (mangled, for Swift).
        public var name: String
        public var calls: Int
        public var instructions: Int
    }

    /// The callees, in the order first met.
    public let callees: [Callee]
    /// Every instruction callgrind collected (the file's `summary`).
    public let collected: Int

    /// Reads `text`, a callgrind output file with the single event `Ir`, for the callees of every
    /// function whose name contains `caller`.
    /// - Throws: `CallgrindError` when the file is not callgrind's, or no such function collected anything.
    public init(text: String, caller: String) throws {
        var names: [String: String] = [:]
        /// The name of a `fn=` or `cfn=` value: `(id) name` defines `id`, `(id)` refers to it.
        func name(_ value: Substring) -> String {
            guard value.hasPrefix("("), let close = value.firstIndex(of: ")") else { return String(value) }
            let id = String(value[value.index(after: value.startIndex)..<close])
            let rest = value[value.index(after: close)...].drop { $0 == " " }
            if !rest.isEmpty { names[id] = String(rest) }
            return names[id] ?? id
        }
        var callees: [Callee] = []
        var collected: Int?
        var inCaller = false
        var callee: String?
        var pendingCalls: Int?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("summary:") {
                collected = Int(line.dropFirst("summary:".count).trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("fn=") {
                inCaller = name(line.dropFirst(3)).contains(caller)
                callee = nil
            } else if line.hasPrefix("cfn=") {
                let called = name(line.dropFirst(4))
                if inCaller { callee = called }
            } else if line.hasPrefix("calls=") {
                pendingCalls = Int(line.dropFirst(6).split(separator: " ").first ?? "")
            } else if let calls = pendingCalls {
                pendingCalls = nil
                let fields = line.split(separator: " ")
                guard inCaller, let callee, fields.count >= 2, let cost = Int(fields[1]) else { continue }
                if let index = callees.firstIndex(where: { $0.name == callee }) {
                    callees[index].calls += calls
                    callees[index].instructions += cost
                } else {
                    callees.append(Callee(name: callee, calls: calls, instructions: cost))
                }
            }
        }
        guard let collected else { throw CallgrindError("not a callgrind output file: it has no summary line") }
        guard !callees.isEmpty else {
            throw CallgrindError("callgrind counted no call from a function named like \(caller)")
        }
        self.callees = callees
        self.collected = collected
    }
}
