import Histogram

extension RunSummary {
    /// A profiled sender (`pushbench profile`), measured from outside: who it was, how it
    /// ended, and what it cost.
    public struct Sender: Codable, Sendable, Equatable {
        /// The command line, its words joined by spaces.
        public var command: String
        /// Its exit status, or 128 + the signal that killed it; `nil` if it could not be ended.
        public var exitStatus: Int?
        /// Why watching stopped: `exited`, `duration` or `interrupted`.
        public var stop: String
        /// Seconds from the stop (SIGTERM, or the sender's own exit with processes left
        /// behind) until every process was gone.
        public var stopS: Double
        /// Why the profile failed, one line; `nil` when it did not.
        public var failure: String?
        /// Pushes the mock received from it, and accepted (200, the answer written).
        public var pushes: Int
        public var accepted: Int
        /// Pushes the mock accepted whose answer was never written (the sender's stream or
        /// connection closed first): their devices have them, and the budget models them, but
        /// the sender never heard; absent when there were none.
        public var acceptedUnsent: Int?
        /// Pushes in flight across all its connections as each arrived (the 90th percentile,
        /// as the mock saw them): the concurrency one process of it has, which `plan` sizes by;
        /// absent when the doctor did not read the traffic.
        public var inFlightP90: Int?
        /// CPU of the sender and every descendant, from the kernel's accounting of each.
        public var cpuUserS: Double
        public var cpuSystemS: Double
        /// CPU per push the mock received, and per push it accepted, microseconds.
        public var cpuUsPerPush: Double
        public var cpuUsPerAcceptedPush: Double
        /// The sender's processes' resident memory together at its sampled peak, and the peak of
        /// the largest one as the kernel keeps it (`VmHWM`, sampled), bytes.
        public var peakRSSBytes: Int
        public var largestProcessPeakRSSBytes: Int
        /// Processes profile reaped: the sender, and descendants left to it when their parent
        /// went (the others are counted in their parent's time).
        public var processes: Int
        /// Pushes the mock received a second, from the first to the last.
        public var pushesPerS: Double
        /// CPU of PushBench's own process (the mock and the measuring) meanwhile, and its
        /// busiest second, percent of one core: a saturated mock, not the sender, set the pace.
        public var mockCPUS: Double
        public var mockPeakCPUPercent: Double

        /// Creates the object; `report` fills it from a profile.
        public init(
            command: String,
            exitStatus: Int?,
            stop: String,
            stopS: Double,
            failure: String?,
            pushes: Int,
            accepted: Int,
            cpuUserS: Double,
            cpuSystemS: Double,
            peakRSSBytes: Int,
            largestProcessPeakRSSBytes: Int,
            processes: Int,
            pushesPerS: Double,
            mockCPUS: Double,
            mockPeakCPUPercent: Double
        ) {
            self.command = command
            self.exitStatus = exitStatus
            self.stop = stop
            self.stopS = stopS
            self.failure = failure
            self.pushes = pushes
            self.accepted = accepted
            self.cpuUserS = cpuUserS
            self.cpuSystemS = cpuSystemS
            let cpuUs = (cpuUserS + cpuSystemS) * 1e6
            cpuUsPerPush = pushes > 0 ? cpuUs / Double(pushes) : 0
            cpuUsPerAcceptedPush = accepted > 0 ? cpuUs / Double(accepted) : 0
            self.peakRSSBytes = peakRSSBytes
            self.largestProcessPeakRSSBytes = largestProcessPeakRSSBytes
            self.processes = processes
            self.pushesPerS = pushesPerS
            self.mockCPUS = mockCPUS
            self.mockPeakCPUPercent = mockPeakCPUPercent
        }

        enum CodingKeys: String, CodingKey {
            case command
            case exitStatus = "exit_status"
            case stop
            case stopS = "stop_s"
            case failure, pushes, accepted
            case acceptedUnsent = "accepted_unsent"
            case inFlightP90 = "in_flight_p90"
            case cpuUserS = "cpu_user_s"
            case cpuSystemS = "cpu_system_s"
            case cpuUsPerPush = "cpu_us_per_push"
            case cpuUsPerAcceptedPush = "cpu_us_per_accepted_push"
            case peakRSSBytes = "peak_rss_bytes"
            case largestProcessPeakRSSBytes = "largest_process_peak_rss_bytes"
            case processes
            case pushesPerS = "pushes_per_s"
            case mockCPUS = "mock_cpu_s"
            case mockPeakCPUPercent = "mock_peak_cpu_percent"
        }
    }

    /// A profiled sender's lag: each push's arrival at the mock minus its event's intended time.
    public struct Lag: Codable, Sendable, Equatable {
        public var p50Ms: Double
        public var p90Ms: Double
        public var p99Ms: Double
        public var p999Ms: Double
        public var maxMs: Double
        /// Pushes that arrived before their event was due (counted as 0 lag).
        public var early: Int
        public var histogramUs: SerializedHistogram

        /// The lag of `histogram` (microseconds), of which `early` pushes came before their time.
        public init(_ histogram: Histogram<UInt64>, early: Int) {
            let percentiles = Percentiles(histogram)
            func ms(_ micros: UInt64) -> Double { Double(micros) / 1000 }
            p50Ms = ms(percentiles.p50)
            p90Ms = ms(percentiles.p90)
            p99Ms = ms(percentiles.p99)
            p999Ms = ms(percentiles.p99_9)
            maxMs = ms(percentiles.max)
            self.early = early
            histogramUs = SerializedHistogram(histogram)
        }

        enum CodingKeys: String, CodingKey {
            case p50Ms = "p50_ms"
            case p90Ms = "p90_ms"
            case p99Ms = "p99_ms"
            case p999Ms = "p999_ms"
            case maxMs = "max_ms"
            case early
            case histogramUs = "histogram_us"
        }
    }

    /// A profiled sender's events against its pushes.
    public struct Events: Codable, Sendable, Equatable {
        /// Events handed to the sender.
        public var total: Int
        /// Events a push answered: the push carrying the event's number, else the token's next
        /// unanswered event by order.
        public var received: Int
        /// Events no push answered.
        public var missing: Int
        /// Pushes no event explains: retries of refused pushes, tokens outside the scenario.
        public var extra: Int
        /// Pushes for an event an accepted push had already answered: a sender that sent an
        /// update twice (absent in older summaries).
        public var duplicates: Int?
        /// A service's owed updates that a later push of their activity answered in their stead
        /// (it coalesced them), and how stale the newest of them was when that push came.
        /// Absent for a sender, and before 0.9.
        public var superseded: Int?
        public var supersededStalenessMs: MillisecondPercentiles?
        /// Pushes that came before anything owed them, by their `aps.event` (`none` without one):
        /// before the clock started, or to an activity before any call to it was sent (a welcome
        /// push at registration). Matched to nothing, in no lag. Absent when none came.
        public var beforeClock: Int?
        public var beforeClockByKind: [String: Int]?
        /// The owed pushes by kind (`update`, `end`): owed, arrived, early, late and lag.
        public var byKind: [String: KindEvents]?

        /// One kind of owed push.
        public struct KindEvents: Codable, Sendable, Equatable {
            public var owed: Int
            public var arrived: Int
            public var missing: Int
            /// Arrived before they were owed, with how long before; after.
            public var early: Int
            public var late: Int
            public var earlyLeadMs: MillisecondPercentiles?
            /// Lag behind the owed time (0 for an early one).
            public var lagMs: MillisecondPercentiles?
            /// A service's updates: the time between one activity's update pushes.
            public var cadenceMs: MillisecondPercentiles?

            /// Creates the counts.
            public init(
                owed: Int,
                arrived: Int,
                missing: Int,
                early: Int,
                earlyLeadMs: MillisecondPercentiles?,
                lagMs: MillisecondPercentiles?
            ) {
                self.owed = owed
                self.arrived = arrived
                self.missing = missing
                self.early = early
                late = arrived - early
                self.earlyLeadMs = earlyLeadMs
                self.lagMs = lagMs
            }

            enum CodingKeys: String, CodingKey {
                case owed, arrived, missing, early, late
                case earlyLeadMs = "early_lead_ms"
                case lagMs = "lag_ms"
                case cadenceMs = "cadence_ms"
            }
        }

        /// Creates the counts.
        public init(total: Int, received: Int, missing: Int, extra: Int, duplicates: Int) {
            self.total = total
            self.received = received
            self.missing = missing
            self.extra = extra
            self.duplicates = duplicates
        }

        enum CodingKeys: String, CodingKey {
            case total, received, missing, extra, duplicates, superseded
            case supersededStalenessMs = "superseded_staleness_ms"
            case beforeClock = "before_clock"
            case beforeClockByKind = "before_clock_by_kind"
            case byKind = "by_kind"
        }
    }
}

extension Histogram<UInt64> {
    /// The median, p90, p99 and largest of a histogram of microseconds; `nil` when it is empty.
    public var microsecondPercentiles: RunSummary.MicrosecondPercentiles? {
        guard totalCount > 0 else { return nil }
        return RunSummary.MicrosecondPercentiles(
            count: Int(totalCount),
            p50: valueAtPercentile(50),
            p90: valueAtPercentile(90),
            p99: valueAtPercentile(99),
            max: max
        )
    }

    /// The median, p90, p99 and largest of a histogram of microseconds, in milliseconds;
    /// `nil` when it is empty.
    public var millisecondPercentiles: RunSummary.MillisecondPercentiles? {
        microsecondPercentiles.map {
            RunSummary.MillisecondPercentiles(
                count: $0.count,
                p50Us: $0.p50,
                p90Us: $0.p90,
                p99Us: $0.p99,
                maxUs: $0.max
            )
        }
    }
}
