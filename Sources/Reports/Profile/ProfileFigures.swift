import Histogram
import LoadEngine
import Pages

/// What `pushbench profile` measured of a sender, in the form the report files take: what the
/// mock received and answered (`Arrivals`), the summary's `sender`, `lag` and `events` objects,
/// and one row a second for `timeseries.csv`. A profile's own type: `summary.json` is written
/// from it directly, with no run result standing in.
public struct ProfileFigures: Sendable {
    /// What the mock received and answered, and what the sender was handed.
    public struct Arrivals: Sendable {
        /// When the sender started (UNIX seconds), and how long it was watched.
        public var startedAtUnix: Double
        public var durationSeconds: Double
        /// The mock's answers: sent is pushes received, succeeded accepted, the rest rejected.
        public var counts: OutcomeCounts
        public var rejectedByReason: [String: Int]
        /// Pushes each connection carried, by `RunResult.connectionKey`, and the connections the
        /// mock accepted.
        public var perConnection: [Int: Int]
        public var connectionAttempts: Int
        /// Each event's first arrival after its due time, microseconds.
        public var lag: Histogram<UInt64>
        /// CPU seconds of the sender and every process it started.
        public var cpuSeconds: Double
        /// Whether Ctrl-C or SIGTERM ended it, and whether the sender was handed every event
        /// of the scenario (no `--requests` cut).
        public var interrupted: Bool
        public var tookEveryEvent: Bool
        /// What the sender was handed: the scenario, the requests cap, the pacing, and (as its
        /// transport) the connections and streams in flight it used, as the mock saw them.
        public var configuration: LoadConfiguration

        /// Creates the figures.
        public init(
            startedAtUnix: Double,
            durationSeconds: Double,
            counts: OutcomeCounts,
            rejectedByReason: [String: Int],
            perConnection: [Int: Int],
            connectionAttempts: Int,
            lag: Histogram<UInt64>,
            cpuSeconds: Double,
            interrupted: Bool,
            tookEveryEvent: Bool,
            configuration: LoadConfiguration
        ) {
            self.startedAtUnix = startedAtUnix
            self.durationSeconds = durationSeconds
            self.counts = counts
            self.rejectedByReason = rejectedByReason
            self.perConnection = perConnection
            self.connectionAttempts = connectionAttempts
            self.lag = lag
            self.cpuSeconds = cpuSeconds
            self.interrupted = interrupted
            self.tookEveryEvent = tookEveryEvent
            self.configuration = configuration
        }
    }

    /// One second of a profile, counted from the sender's start.
    public struct Row: Sendable, Equatable {
        public var startS: Double
        public var intervalS: Double
        /// Pushes the mock received and accepted a second.
        public var pushesPerS: Double
        public var acceptedPerS: Double
        /// The sender's processes' CPU (percent of one core) and memory together.
        public var cpuPercent: Double
        public var rssBytes: Int
        /// PushBench's own process: the mock and the measuring, percent of one core.
        public var mockCPUPercent: Double
        /// Lag of the pushes that arrived in the second, milliseconds (0 when none did).
        public var lagP50Ms: Double
        public var lagP99Ms: Double

        /// Creates a row.
        public init(
            startS: Double,
            intervalS: Double,
            pushesPerS: Double,
            acceptedPerS: Double,
            cpuPercent: Double,
            rssBytes: Int,
            mockCPUPercent: Double,
            lagP50Ms: Double,
            lagP99Ms: Double
        ) {
            self.startS = startS
            self.intervalS = intervalS
            self.pushesPerS = pushesPerS
            self.acceptedPerS = acceptedPerS
            self.cpuPercent = cpuPercent
            self.rssBytes = rssBytes
            self.mockCPUPercent = mockCPUPercent
            self.lagP50Ms = lagP50Ms
            self.lagP99Ms = lagP99Ms
        }
    }

    public var arrivals: Arrivals
    public var sender: RunSummary.Sender
    public var lag: RunSummary.Lag
    public var events: RunSummary.Events
    public var rows: [Row]
    /// The sender's last lines on standard error, shown with a failure.
    public var stderrTail: [String]
    /// The sender doctor's verdict on what the mock received, and the traffic report's page.
    public var practicesVerdict: String?
    public var trafficPage: String?
    /// What the budget model made of the accepted pushes, in one sentence, when one ran.
    public var budgetVerdict: String?
    /// A sender service's API and fan-out, when it was driven through its API (`--api`).
    public var service: ServiceFigures?
    /// The sealed network the sender ran in (`--as-apple`), when it ran in one.
    public var sealedNetwork: RunSummary.SealedNetwork?
    /// Whether profile started the sender and measured its processes' CPU and memory: not for a
    /// service that already ran.
    public var processesMeasured = true

    /// Creates the figures.
    public init(
        arrivals: Arrivals,
        sender: RunSummary.Sender,
        lag: RunSummary.Lag,
        events: RunSummary.Events,
        rows: [Row],
        stderrTail: [String]
    ) {
        self.arrivals = arrivals
        self.sender = sender
        self.lag = lag
        self.events = events
        self.rows = rows
        self.stderrTail = stderrTail
    }

    /// `timeseries.csv` of a profile: units in every column name.
    public var timeseriesTable: CSVTable {
        var table = CSVTable(columns: [
            "start_s", "interval_s", "pushes_per_s", "accepted_per_s", "sender_cpu_percent", "sender_rss_bytes",
            "mock_cpu_percent", "lag_p50_ms", "lag_p99_ms",
        ])
        for row in rows {
            table.append([
                String(format: "%.3f", row.startS), String(format: "%.3f", row.intervalS),
                String(format: "%.1f", row.pushesPerS), String(format: "%.1f", row.acceptedPerS),
                String(format: "%.1f", row.cpuPercent), String(row.rssBytes),
                String(format: "%.1f", row.mockCPUPercent), String(format: "%.3f", row.lagP50Ms),
                String(format: "%.3f", row.lagP99Ms),
            ])
        }
        return table
    }
}
