import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import Workload

/// `pushbench scenarios`: the built-in scenarios, their files, and what they generate.
struct ScenariosCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenarios",
        abstract: "List the built-in scenarios, print one as a file, or stream one and count its pushes.",
        discussion: """
            A scenario file (YAML or JSON) has these keys; absent ones take the defaults `show` prints:
              name, description, seed, active_limit_s (8 h), past_limit (end | keep-sending),
              cohorts: a list of
                kind (football | delivery | rideshare | upload | flash-sale), activities,
                groups (fan-out groups: every activity in a group gets each event at once),
                starts (at-once | uniform), at_s, spread_s (when groups begin),
                join_s (activities start over this long before their group's timeline),
                push_to_start, input_push_token, rotate_fraction, rotation_within_s,
                priorities (event kind: 1 | 5 | 10).
            Unknown keys and out-of-range values are errors that name the field.

              pushbench scenarios show football > final.yaml
              pushbench scenarios stream final.yaml --activities 1000000 --threads 2
            """,
        subcommands: [List.self, Show.self, Stream.self],
        defaultSubcommand: List.self
    )

    /// Finds a scenario by built-in name or file path, scaled to `activities` and reseeded with
    /// `seed` when they are given.
    static func load(_ nameOrPath: String, activities: Int?, seed: UInt64?) throws -> Scenario {
        var loaded = try load(nameOrPath)
        if let activities { loaded = loaded.scaled(toActivities: activities) }
        if let seed { loaded.seed = seed }
        return loaded
    }

    /// Finds a scenario by built-in name or file path.
    static func load(_ nameOrPath: String) throws -> Scenario {
        if FileManager.default.fileExists(atPath: nameOrPath) {
            let text = try InputFile.text(nameOrPath, what: "scenario")
            do {
                return try Scenario(parsing: text)
            } catch {
                throw CommandLineError("\(nameOrPath): \(error)")
            }
        }
        do {
            return try Scenario.builtIn(named: nameOrPath)
        } catch {
            throw CommandLineError("\(error), and no file \(nameOrPath)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the built-in scenarios and kinds.")

        func run() {
            // The name column is as wide as the longest name: a name is never cut.
            let width = (Scenario.builtIn.map(\.name) + ActivityKind.allCases.map(\.rawValue)).map(\.count).max() ?? 0
            func column(_ name: String) -> String { name.padding(toLength: width, withPad: " ", startingAt: 0) }
            Console.out("built-in scenarios (pushbench scenarios show NAME prints one as a file):")
            for scenario in Scenario.builtIn {
                let cohort = scenario.cohorts[0]
                Console.out(
                    "  \(column(scenario.name))"
                        + " \(cohort.activities) activities in \(cohort.groups) group(s): \(scenario.description)"
                )
            }
            Console.out("activity kinds:")
            for kind in ActivityKind.allCases {
                Console.out("  \(column(kind.rawValue)) \(kind.summary)")
                let priorities = ([EventKind.start] + kind.eventKinds).map {
                    "\($0.rawValue) \(kind.defaultPriorities[$0] ?? 10)"
                }
                Console.out("  \(column("")) events (default priority): \(priorities.joined(separator: ", "))")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a scenario as a YAML file, every field spelled out."
        )

        @Argument(help: "A built-in name or a scenario file.")
        var scenario: String

        func run() throws {
            Console.write(STDOUT_FILENO, try ScenariosCommand.load(scenario).yaml)
        }
    }

    struct Stream: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate every push of a scenario, count them, and time the generator.",
            discussion: """
                Nothing is sent. Each thread streams one shard of the activities; the counts are by lifecycle phase, \
                event kind and priority, with the busiest simulated second (the fan-out a sender must absorb).
                """
        )

        @Argument(help: "A built-in name or a scenario file.")
        var scenario: String

        @Option(help: "Scale the scenario to this many activities.")
        var activities: Int?

        @Option(help: "Override the scenario's seed.")
        var seed: UInt64?

        @Option(help: "Generator threads, one shard each.")
        var threads = 1

        func validate() throws {
            if let activities, activities < 1 { throw ValidationError("--activities must be at least 1") }
            guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1 to 256") }
        }

        func run() throws {
            let chosen = try ScenariosCommand.load(scenario, activities: activities, seed: seed)
            let streams = try (0..<threads).map {
                try ScenarioStream(chosen, shard: try Shard(index: $0, count: threads))
            }
            let total = Mutex(ScenarioTally())
            let start = DispatchTime.now().uptimeNanoseconds
            DispatchQueue.concurrentPerform(iterations: threads) { index in
                var tally = ScenarioTally()
                for event in streams[index] { tally.count(event) }
                total.withLock { $0.merge(tally) }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let scenario = chosen
            let lines = total.withLock { $0.report(scenario: scenario, seconds: seconds, threads: threads) }
            for line in lines { Console.out(line) }
        }
    }
}
