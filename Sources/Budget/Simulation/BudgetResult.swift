/// A finished budget run (a simulated scenario or replayed traffic): what went in, what the
/// model counted, and how fast it ran.
public struct BudgetResult: Sendable {
    /// Where the pushes came from.
    public enum Input: String, Sendable {
        /// A scenario, simulated.
        case scenario
        /// A file recorded by `pushbench mock --record`.
        case traffic
        /// The pushes a `pushbench run` target accepted.
        case run
    }

    /// Where the pushes came from.
    public let input: Input
    /// The scenario's name, or the traffic file's path.
    public let name: String
    /// Activities the input holds.
    public let activities: Int
    /// The scenario's seed; `nil` for recorded traffic.
    public let seed: UInt64?
    /// The model's numbers.
    public let parameters: BudgetParameters
    /// Activities per device.
    public let activitiesPerDevice: Int
    /// Worker threads used.
    public let threads: Int
    /// Wall time of the simulation, seconds; 0 when the model was fed during a run.
    public let wallSeconds: Double
    /// The counts.
    public let tally: BudgetTally
    /// Whether the simulation was stopped early (Ctrl-C); the counts cover what was simulated.
    public var interrupted = false

    /// Pushes simulated per wall second.
    public var pushesPerSecond: Double { wallSeconds > 0 ? Double(tally.pushes) / wallSeconds : 0 }
}
