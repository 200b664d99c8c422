import ArgumentParser
import Foundation
import Workload

/// The pushes a command sends or models: a scenario, scaled to a number of activities, with its
/// seed and delivery. One group, so `run`, `profile` and `budget` take a scenario the same way
/// (and the two that send it, how many of its pushes: `RequestLimitOptions`).
struct ScenarioOptions: ParsableArguments {

    @Option(help: "A built-in scenario (pushbench scenarios list) or a scenario file.")
    var scenario = "football"

    @Option(
        help: """
            Scale the scenario to this many activities (default: one per --tokens line; a scenario file's own; \
            1000 for a built-in scenario in run and profile, its own for budget).
            """
    )
    var activities: Int?

    @Option(help: "Override the scenario's seed (its tokens and events).")
    var seed: UInt64?

    @Option(
        help: ArgumentHelp(
            "How updates reach the activities, for every cohort: token, broadcast, or (budget) both side by side (default: each cohort's own delivery).",
            discussion: """
                token: a push per activity to its update token. broadcast (iOS 18): a channel per group is \
                created before the run through the channel management API (--channel-endpoint; the embedded \
                mock serves one), each activity's start subscribes to it, each step is one push to \
                /4/broadcasts/apps/<bundle-id>, and the channels are deleted when the run ends; a group stays \
                with one worker; every subscriber's device still spends its own budget. both (budget only): \
                the report is the per-token one, and budget_delivery.csv and the console set the two side by \
                side: the pushes the sender sends against what the devices show.
                """
        )
    )
    var delivery: DeliveryChoice?

    /// `--delivery`: one of the scenario's deliveries for every cohort, or (budget) both in turn.
    enum DeliveryChoice: String, ExpressibleByArgument, CaseIterable {
        case token, broadcast, both
    }

    func validate() throws {
        if let activities, activities < 1 { throw ValidationError("--activities must be at least 1") }
    }

    /// For a command that sends the scenario: one delivery, not both.
    func requireOneDelivery() throws {
        if delivery == .both {
            throw ValidationError(
                "--delivery both sets the two side by side in `pushbench budget`; give token or broadcast"
            )
        }
    }

    /// The scenario as run: `--scenario`, scaled to `--activities`, else to one activity a token
    /// of `tokens`, else a file's own count (its author chose it), else a built-in's scaled to
    /// `defaultActivities` (or its own); with `--seed` and `--delivery` applied (both: per token,
    /// the first of the two).
    func scenario(defaultActivities: Int?, tokens: Int? = nil) throws -> Scenario {
        let isFile = FileManager.default.fileExists(atPath: self.scenario)
        let count = activities ?? tokens ?? (isFile ? nil : defaultActivities)
        let scenario = try ScenariosCommand.load(self.scenario, activities: count, seed: seed)
        switch delivery {
        case .token, .both: return scenario.delivered(by: .token)
        case .broadcast: return scenario.delivered(by: .broadcast)
        case nil: return scenario
        }
    }
}

/// How many of the scenario's pushes a command sends: `run` and `profile`, not `budget`, which
/// models the whole scenario.
struct RequestLimitOptions: ParsableArguments {
    @Option(help: "Stop after this many pushes (default: the whole scenario).")
    var requests: Int?

    func validate() throws {
        if let requests, requests < 1 { throw ValidationError("--requests must be at least 1") }
    }
}
