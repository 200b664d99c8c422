import Foundation
import Yams

extension Scenario {
    /// Reads a scenario from YAML or JSON text (JSON is read as YAML, of which it is a subset).
    /// Absent keys take the defaults `pushbench scenarios show` prints.
    /// - Throws: `WorkloadError` naming the field and the problem, for malformed text, wrong
    ///   types, values out of range and unknown keys.
    public init(parsing text: String) throws {
        let tree: Any?
        do {
            tree = try Yams.load(yaml: text)
        } catch {
            throw WorkloadError("not valid YAML or JSON: \(error)")
        }
        var reader = try FieldReader(tree, path: "")
        guard let name = try reader.string("name"), !name.isEmpty else { throw WorkloadError("name: required") }
        guard let cohorts = try reader.list("cohorts", Self.cohort) else { throw WorkloadError("cohorts: required") }
        self.init(
            name: name,
            description: try reader.string("description") ?? "",
            seed: UInt64(try reader.integer("seed", in: 0...Int64.max) ?? 1),
            cohorts: cohorts,
            activeLimitSeconds: try reader.integer("active_limit_s", in: 1...Int64(Int32.max)) ?? 8 * 3600,
            pastLimit: try reader.choice("past_limit", of: PastLimitPolicy.self) ?? .end
        )
        try reader.finish()
        try validate()
    }

    private static func cohort(_ reader: inout FieldReader) throws -> Cohort {
        guard let kind = try reader.choice("kind", of: ActivityKind.self) else {
            throw WorkloadError("\(reader.path).kind: required")
        }
        guard let activities = try reader.integer("activities", in: 1...1_000_000_000) else {
            throw WorkloadError("\(reader.path).activities: required")
        }
        let seconds: ClosedRange<Int64> = 0...(366 * 86_400)
        var cohort = Cohort(
            kind: kind,
            activities: Int(activities),
            groups: try reader.integer("groups", in: 1...1_000_000_000).map(Int.init),
            distribution: try reader.choice("starts", of: StartDistribution.self) ?? .atOnce,
            atSeconds: try reader.integer("at_s", in: seconds) ?? 0,
            spreadSeconds: try reader.integer("spread_s", in: seconds) ?? 0,
            joinSeconds: try reader.integer("join_s", in: seconds),
            pushToStart: try reader.boolean("push_to_start") ?? true,
            inputPushToken: try reader.boolean("input_push_token") ?? true,
            rotateFraction: try reader.number("rotate_fraction", in: 0...1) ?? 0,
            rotationWithinSeconds: try reader.integer("rotation_within_s", in: 1...seconds.upperBound) ?? 3600,
            delivery: try reader.choice("delivery", of: Delivery.self) ?? .token,
            channelStorage: try reader.choice("channel_storage", of: ChannelStorage.self) ?? .none,
            updates: try reader.choice("updates", of: Updates.self) ?? .all
        )
        if var priorities = try reader.mapping("priorities") {
            for key in priorities.keys {
                guard let event = EventKind(rawValue: key) else {
                    throw WorkloadError(
                        "\(priorities.path).\(key): not an event kind; \(kind.rawValue) has "
                            + (kind.eventKinds + [.start, .limit]).map(\.rawValue).sorted().joined(separator: ", ")
                    )
                }
                cohort.priorities[event] = Int(try priorities.integer(key, in: 1...10)!)
            }
            try priorities.finish()
        }
        return cohort
    }

    /// The scenario as a YAML file that `init(parsing:)` reads back to an equal scenario, every
    /// field spelled out so the file documents the defaults.
    public var yaml: String {
        var lines = [
            "# PushBench scenario; every field is described in Scenarios/README.md.",
            "name: \(Self.quoted(name))",
            "description: \(Self.quoted(description))",
            "seed: \(seed)",
            "active_limit_s: \(activeLimitSeconds)",
            "past_limit: \(pastLimit.rawValue)",
            "cohorts:",
        ]
        for cohort in cohorts {
            lines += [
                "  - kind: \(cohort.kind.rawValue)",
                "    activities: \(cohort.activities)",
                "    groups: \(cohort.groups)",
                "    starts: \(cohort.distribution.rawValue)",
                "    at_s: \(cohort.atSeconds)",
                "    spread_s: \(cohort.spreadSeconds)",
                "    join_s: \(cohort.joinSeconds)",
                "    push_to_start: \(cohort.pushToStart)",
                "    input_push_token: \(cohort.inputPushToken)",
                "    rotate_fraction: \(cohort.rotateFraction)",
                "    rotation_within_s: \(cohort.rotationWithinSeconds)",
                "    delivery: \(cohort.delivery.rawValue)",
                "    channel_storage: \(cohort.channelStorage.rawValue)",
                "    updates: \(cohort.updates.rawValue)",
                "    priorities:",
            ]
            for event in ([.start] + cohort.kind.eventKinds + [.limit]) {
                lines.append("      \(event.rawValue): \(cohort.priority(of: event))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
