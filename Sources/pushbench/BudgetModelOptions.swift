import ArgumentParser
import Budget

/// The device budget model's values: a preset, and any of its values given on top. One group,
/// so every command that models the budget takes its values the same way.
struct BudgetModelOptions: ParsableArguments {

    @Option(
        help: ArgumentHelp(
            "Starting values: conservative, community or frequent.",
            discussion: BudgetParameters.presets.map { preset in
                let values = preset.parameters
                let frequent = values.frequentUpdates ? ", frequent ×\(values.frequentFactor.formatted())" : ""
                return "\(values.name) (burst \(values.burst.formatted()), \(values.perHour.formatted())/h, "
                    + "window \(values.lowPriorityIntervalSeconds.formatted()) s\(frequent), start burst "
                    + "\(values.startBurst.formatted()), \(values.startPerHour.formatted())/h): \(preset.source)"
            }.joined(separator: "\n")
        )
    )
    var preset = "community"

    @Option(help: "Priority-10 bucket capacity, updates (overrides the preset).")
    var bucket: Double?

    @Option(name: .customLong("per-hour"), help: "Priority-10 refill, updates per hour (overrides the preset).")
    var perHour: Double?

    @Option(
        name: .customLong("low-priority-interval"),
        help:
            "A low-priority window (30s); one update shown per window (overrides the preset)."
    )
    var lowPriorityInterval: TimeSpan?

    @Option(
        name: .customLong("frequent-updates"),
        help: "Whether the app sets NSSupportsLiveActivitiesFrequentUpdates: true or false (overrides the preset)."
    )
    var frequentUpdates: Bool?

    @Option(name: .customLong("frequent-factor"), help: "What frequent updates multiply burst and refill by.")
    var frequentFactor: Double?

    @Option(name: .customLong("frequent-off"), help: "Share of users who turned frequent updates off, 0 to 1.")
    var frequentOff: Double?

    @Option(name: .customLong("start-burst"), help: "Push-to-start bucket per device, starts.")
    var startBurst: Double?

    @Option(name: .customLong("start-per-hour"), help: "Push-to-start refill per device, starts per hour.")
    var startPerHour: Double?

    @Option(
        name: .customLong("active-limit"),
        help: "How long an activity stays live (8h)."
    )
    var activeLimit: TimeSpan?

    /// A value out of range is a malformed command line (exit 64), named by its flag.
    func validate() throws {
        let positive: [(String, Double?)] = [
            ("--bucket", bucket), ("--per-hour", perHour), ("--frequent-factor", frequentFactor),
            ("--start-burst", startBurst), ("--active-limit", activeLimit?.seconds),
        ]
        for case let (flag, value?) in positive where !(value > 0 && value.isFinite) {
            throw ValidationError("\(flag) must be a positive number, not \(value.formatted())")
        }
        let zeroOrMore: [(String, Double?)] = [
            ("--low-priority-interval", lowPriorityInterval?.seconds), ("--start-per-hour", startPerHour),
        ]
        for case let (flag, value?) in zeroOrMore where !(value >= 0 && value.isFinite) {
            throw ValidationError("\(flag) must be zero or more, not \(value.formatted())")
        }
        if let frequentOff, !(0...1).contains(frequentOff) {
            throw ValidationError("--frequent-off must be between 0 and 1, not \(frequentOff.formatted())")
        }
    }

    /// The preset with the options given on top, named "<preset>, overridden" once anything is.
    func parameters() throws -> (BudgetParameters, source: String) {
        let preset = try BudgetParameters.preset(named: preset)
        var parameters = preset.parameters
        let overrides: [(WritableKeyPath<BudgetParameters, Double>, Double?)] = [
            (\.burst, bucket), (\.perHour, perHour),
            (\.lowPriorityIntervalSeconds, lowPriorityInterval?.seconds),
            (\.frequentFactor, frequentFactor), (\.frequentOffFraction, frequentOff), (\.startBurst, startBurst),
            (\.startPerHour, startPerHour), (\.activeLimitSeconds, activeLimit?.seconds),
        ]
        var overridden = false
        for (path, value) in overrides {
            guard let value else { continue }
            parameters[keyPath: path] = value
            overridden = true
        }
        if let frequentUpdates {
            parameters.frequentUpdates = frequentUpdates
            overridden = true
        }
        if overridden { parameters.name = "\(preset.parameters.name), overridden" }
        try parameters.validate()
        return (
            parameters, overridden ? "preset \(preset.parameters.name) with overrides; \(preset.source)" : preset.source
        )
    }

}

extension BudgetClock: ExpressibleByArgument {}
