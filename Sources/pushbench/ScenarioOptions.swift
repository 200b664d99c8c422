import ArgumentParser
import Workload

/// The pushes a command sends: a scenario, scaled to a number of activities, with its seed and
/// delivery, and how many of its pushes to send. One group, so every command that sends a
/// scenario takes it the same way.
struct ScenarioOptions: ParsableArguments {

    @Option(help: "A built-in scenario (pushbench scenarios list) or a scenario file.")
    var scenario = "football"

    @Option(help: "Scale the scenario to this many activities (default: 1000, or one per --tokens line).")
    var activities: Int?

    @Option(help: "Stop after this many pushes (default: the whole scenario).")
    var requests: Int?

    @Option(help: "Override the scenario's seed (its tokens and events).")
    var seed: UInt64?

    @Option(
        help: ArgumentHelp(
            "How updates reach the activities, for every cohort: token or broadcast (default: each cohort's own delivery).",
            discussion: """
                broadcast (iOS 18): a channel per group is created before the run through the channel \
                management API (--channel-endpoint; the embedded mock serves one), each activity's start \
                subscribes to it, each step is one push to /4/broadcasts/apps/<bundle-id>, and the channels \
                are deleted when the run ends. A group stays with one worker.
                """
        )
    )
    var delivery: Scenario.Delivery?

    func validate() throws {
        if let requests, requests < 1 { throw ValidationError("--requests must be at least 1") }
        if let activities, activities < 1 { throw ValidationError("--activities must be at least 1") }
    }

    /// The scenario as run: `--scenario`, scaled to `--activities` (or `defaultActivities`),
    /// with `--seed` and `--delivery` applied.
    func scenario(defaultActivities: Int) throws -> Scenario {
        let scenario = try ScenariosCommand.load(self.scenario, activities: activities ?? defaultActivities, seed: seed)
        return delivery.map { scenario.delivered(by: $0) } ?? scenario
    }
}
