import Basics
import Foundation
import LoadEngine
import Transport

/// Instructions per push, by stage, as `pushbench hotpath --instructions` counts them under
/// Valgrind: figures a busy neighbour cannot change, for a CI gate that does not flake
/// (`pushbench compare --mode instructions`).
public struct InstructionCounts: Codable, Sendable, Equatable {
    /// One stage's count.
    public struct Stage: Codable, Sendable, Equatable {
        /// A `PushStage` raw value.
        public var stage: String
        /// Instructions per push (per signature for `es256_signature`).
        public var instructionsPerPush: Double
        /// Calls counted, one per push.
        public var calls: Int

        public init(stage: String, instructionsPerPush: Double, calls: Int) {
            self.stage = stage
            self.instructionsPerPush = instructionsPerPush
            self.calls = calls
        }

        enum CodingKeys: String, CodingKey {
            case stage
            case instructionsPerPush = "instructions_per_push"
            case calls
        }
    }

    /// What the file holds, so another kind of JSON is refused by name.
    public static let kindName = "pushbench_instructions"
    public var kind = Self.kindName
    /// The build that was counted: its version, commit and libraries.
    public var build: BuildDescription
    /// Valgrind's version line and tool.
    public var counter: String
    /// The workload: scenario and activities.
    public var workload: String
    /// Pushes counted.
    public var pushes: Int
    public var stages: [Stage]

    /// Every stage's instructions per push, added up.
    public var totalPerPush: Double { stages.reduce(0) { $0 + $1.instructionsPerPush } }

    enum CodingKeys: String, CodingKey {
        case kind, build, counter, workload, pushes, stages
        case totalPerPush = "total_instructions_per_push"
    }

    public init(build: BuildDescription, counter: String, workload: String, pushes: Int, stages: [Stage]) {
        self.build = build
        self.counter = counter
        self.workload = workload
        self.pushes = pushes
        self.stages = stages
    }

    /// The stages of `callees`, the calls `PushStageWorkload.runCountedPushes` made, per push.
    /// - Throws: `CallgrindError` when a stage was never called, or not once per push: its
    ///   function was inlined, renamed or skipped, and its count would be wrong.
    public init(
        callees: CallgrindCallees,
        pushes: Int,
        build: BuildDescription,
        counter: String,
        workload: String
    ) throws {
        let stages = try PushStage.allCases.map { stage in
            let calls = callees.callees.filter { $0.name.contains(stage.functionName) }
            let count = calls.reduce(0) { $0 + $1.calls }
            guard count == pushes else {
                throw CallgrindError(
                    "callgrind saw \(count) calls of \(stage.functionName) for \(pushes) pushes: "
                        + "was it inlined or renamed?"
                )
            }
            let instructions = calls.reduce(0) { $0 + $1.instructions }
            return Stage(
                stage: stage.rawValue,
                instructionsPerPush: Double(instructions) / Double(pushes),
                calls: count
            )
        }
        self.init(build: build, counter: counter, workload: workload, pushes: pushes, stages: stages)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(build, forKey: .build)
        try container.encode(counter, forKey: .counter)
        try container.encode(workload, forKey: .workload)
        try container.encode(pushes, forKey: .pushes)
        try container.encode(stages, forKey: .stages)
        try container.encode(totalPerPush, forKey: .totalPerPush)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        build = try container.decode(BuildDescription.self, forKey: .build)
        counter = try container.decode(String.self, forKey: .counter)
        workload = try container.decode(String.self, forKey: .workload)
        pushes = try container.decode(Int.self, forKey: .pushes)
        stages = try container.decode([Stage].self, forKey: .stages)
    }

    /// Reads counts written by `hotpath --instructions --json`.
    /// - Throws: `InstructionCountsFileError` naming the file and what is wrong with it.
    public init(contentsOf path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InstructionCountsFileError("cannot read \(path): \(error.localizedDescription)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["kind"] as? String == Self.kindName
        else {
            throw InstructionCountsFileError(
                "\(path) is not an instruction count (pushbench hotpath --instructions --json writes one)"
            )
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch {
            throw InstructionCountsFileError("\(path) is a damaged instruction count: \(error)")
        }
    }

    /// Whether `path` holds an instruction count rather than a run's summary.
    public static func isInstructionCount(_ path: String) -> Bool {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return false }
        return object["kind"] as? String == kindName
    }

    /// The counts as JSON, keys sorted, for a file a person may diff.
    public var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }
}

/// A file of instruction counts (a baseline, a count to compare) that cannot be read: bad input.
public struct InstructionCountsFileError: Error, CustomStringConvertible {
    public let description: String

    /// The file and what is wrong with it, in one line.
    public init(_ description: String) {
        self.description = description
    }
}
