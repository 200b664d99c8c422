import Workload

/// The same scenario under every preset and four priority policies, side by side: which
/// budget assumption and which policy a sender's numbers hinge on.
public struct BudgetSweep: Sendable {
    /// One preset under one policy.
    public struct Row: Sendable {
        /// The preset's name.
        public let preset: String
        /// `scenario` (its own priorities), `all-10`, `key-10` (key events at 10, the rest at 5),
        /// or `all-5`.
        public let policy: String
        /// The tally of the run.
        public let tally: BudgetTally
    }

    /// The policies compared.
    public static let policies = ["scenario", "all-10", "key-10", "all-5"]

    /// The scenario and the simulation settings (its parameters are replaced by each preset's).
    public let simulation: BudgetSimulation

    /// Creates a sweep of `simulation`'s scenario.
    public init(simulation: BudgetSimulation) {
        self.simulation = simulation
    }

    /// Runs every preset under every policy.
    /// - Parameter progress: called before each run with what it is.
    public func run(progress: (String) -> Void = { _ in }) throws -> [Row] {
        let scenario = simulation.scenario
        let allKinds = Set(scenario.cohorts.flatMap(\.kind.eventKinds))
        let keyKinds = Set(scenario.cohorts.flatMap(\.kind.keyEventKinds))
        var rows: [Row] = []
        for preset in BudgetParameters.presets {
            for policy in Self.policies {
                progress("sweep: \(preset.parameters.name) under \(policy)")
                var run = simulation
                run.parameters = preset.parameters
                run.sampleEvery = 0
                switch policy {
                case "all-10": run.scenario = PriorityPolicy.apply(allKinds, to: scenario)
                case "key-10": run.scenario = PriorityPolicy.apply(keyKinds, to: scenario)
                case "all-5": run.scenario = PriorityPolicy.apply([], to: scenario)
                default: break
                }
                rows.append(Row(preset: preset.parameters.name, policy: policy, tally: try run.run().tally))
            }
        }
        return rows
    }
}
