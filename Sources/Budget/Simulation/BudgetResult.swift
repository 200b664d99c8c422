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
    /// For a run's accepted pushes: on which clock they reached the devices, and how much of
    /// the scenario they cover.
    public var runFeed: RunFeed?

    /// How a run's accepted pushes were modelled.
    public struct RunFeed: Sendable, Equatable {
        /// When each push reached its device.
        public var clock: BudgetClock
        /// The first and last push's time on `clock`, milliseconds of the scenario's clock
        /// (for `.run`, the run's elapsed time scaled by its pacing); `nil` when none was
        /// accepted.
        public var spanMs: ClosedRange<Int64>?
        /// Whether the run left part of the scenario unsent, so the figures cover only its start.
        public var partial: Bool
        /// For a partial run: the whole of the scenario over the run's activities, so a report
        /// can say which part the figures cover; `nil` when it was too large to stream again.
        public var wholeScenario: WholeScenario?

        /// The scenario a partial run was cut from.
        public struct WholeScenario: Sendable, Equatable {
            /// Every push the scenario has for the run's activities.
            public var pushes: Int
            /// Its last event's time, milliseconds.
            public var lastEventMs: Int64

            /// Creates the description.
            public init(pushes: Int, lastEventMs: Int64) {
                self.pushes = pushes
                self.lastEventMs = lastEventMs
            }
        }

        /// Creates a description.
        public init(clock: BudgetClock, spanMs: ClosedRange<Int64>?, partial: Bool, wholeScenario: WholeScenario?) {
            self.clock = clock
            self.spanMs = spanMs
            self.partial = partial
            self.wholeScenario = wholeScenario
        }
    }

    /// Creates a result.
    public init(
        input: Input,
        name: String,
        activities: Int,
        seed: UInt64?,
        parameters: BudgetParameters,
        activitiesPerDevice: Int,
        threads: Int,
        wallSeconds: Double,
        tally: BudgetTally,
        interrupted: Bool = false,
        runFeed: RunFeed? = nil
    ) {
        self.input = input
        self.name = name
        self.activities = activities
        self.seed = seed
        self.parameters = parameters
        self.activitiesPerDevice = activitiesPerDevice
        self.threads = threads
        self.wallSeconds = wallSeconds
        self.tally = tally
        self.interrupted = interrupted
        self.runFeed = runFeed
    }

    /// Pushes simulated per wall second.
    public var pushesPerSecond: Double { wallSeconds > 0 ? Double(tally.pushes) / wallSeconds : 0 }
}
