extension RunSummary {
    /// A lifecycle profile's figures (`profile --api` with a file whose devices report their own
    /// tokens; absent before 0.6): the operator's starts and their fan-out to push-to-start
    /// tokens, the registration storm of token reports behind them, each activity's time to
    /// its first update, and the pushes the devices dropped, by cause.
    public struct Lifecycle: Codable, Sendable, Equatable {
        /// What became of the activities the scenario starts.
        public struct Activities: Codable, Sendable, Equatable {
            /// Activities the scenario starts (by the operator's calls or by their apps).
            public var expected: Int
            public var started: Int
            public var neverStarted: Int
            /// Started, and shown at least one update (an end is not one).
            public var updated: Int
            /// Started, owed an update, and shown none (an activity its scenario owes no update,
            /// `updates: none`, is not counted).
            public var startedNeverUpdated: Int
            /// Why each started activity was never updated, read from the evidence:
            /// `never_reported` (the device never reported its token: the user never allowed it,
            /// the app was killed), `report_failed` (the service refused the report or did not
            /// answer in time), `report_not_answered` (sent, still waiting when the profile ended),
            /// `report_never_sent` (due, never sent before the profile ended, or held in
            /// PushBench's own queue until its deadline),
            /// `reported_after_last_update` (no call was sent after the service learned the
            /// token), `ended_before_update` (its user closed it before the first call that owed
            /// it an update was sent), `apns_refused` (the service sent its updates and APNs
            /// refused every one), `token_rotated` (its pushes went to a token rotated out past
            /// its grace), `not_sent_by_service` (those calls reached few of their activities
            /// and the service had stopped pushing: no backlog), `service_behind` (the calls
            /// that owed it an update reached few of
            /// their other activities either, or came after its user closed it),
            /// `report_lost_by_service` (those calls reached most of the others, and nothing
            /// came to this one).
            public var neverUpdatedByCause: [String: Int]
            public var dismissed: Int
            public var rotated: Int
            /// Starts to a device whose activity was already running: a second activity on it.
            public var extraStarts: Int
            /// Activities a start push started before the operator's call meant to start them
            /// was due: the service started them on its own (on subscribe, from a scheduler).
            /// They are not in that call's fan-out.
            public var startsBeforeTheirCall: Int
            /// Activities whose end push was accepted and shown, whoever sent it: an operator's
            /// end call, or the service on its own clock (absent before 0.9).
            public var ended: Int?
            /// Of those ended, the activities whose first push after their start was the end:
            /// no update came before it (absent before 0.10).
            public var endWasFirstPush: Int?

            /// Creates the figures.
            public init(
                expected: Int,
                started: Int,
                neverStarted: Int,
                updated: Int,
                startedNeverUpdated: Int,
                neverUpdatedByCause: [String: Int],
                dismissed: Int,
                rotated: Int,
                extraStarts: Int,
                startsBeforeTheirCall: Int = 0,
                ended: Int? = nil,
                endWasFirstPush: Int? = nil
            ) {
                self.expected = expected
                self.started = started
                self.neverStarted = neverStarted
                self.updated = updated
                self.startedNeverUpdated = startedNeverUpdated
                self.neverUpdatedByCause = neverUpdatedByCause
                self.dismissed = dismissed
                self.rotated = rotated
                self.extraStarts = extraStarts
                self.startsBeforeTheirCall = startsBeforeTheirCall
                self.ended = ended
                self.endWasFirstPush = endWasFirstPush
            }

            /// Reads the figures; an older summary has no `starts_before_their_call`: 0.
            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                expected = try container.decode(Int.self, forKey: .expected)
                started = try container.decode(Int.self, forKey: .started)
                neverStarted = try container.decode(Int.self, forKey: .neverStarted)
                updated = try container.decode(Int.self, forKey: .updated)
                startedNeverUpdated = try container.decode(Int.self, forKey: .startedNeverUpdated)
                neverUpdatedByCause = try container.decode([String: Int].self, forKey: .neverUpdatedByCause)
                dismissed = try container.decode(Int.self, forKey: .dismissed)
                rotated = try container.decode(Int.self, forKey: .rotated)
                extraStarts = try container.decode(Int.self, forKey: .extraStarts)
                startsBeforeTheirCall = try container.decodeIfPresent(Int.self, forKey: .startsBeforeTheirCall) ?? 0
                ended = try container.decodeIfPresent(Int.self, forKey: .ended)
                endWasFirstPush = try container.decodeIfPresent(Int.self, forKey: .endWasFirstPush)
            }

            enum CodingKeys: String, CodingKey {
                case expected, started, updated, dismissed, rotated, ended
                case neverStarted = "never_started"
                case startedNeverUpdated = "started_never_updated"
                case neverUpdatedByCause = "never_updated_by_cause"
                case extraStarts = "extra_starts"
                case startsBeforeTheirCall = "starts_before_their_call"
                case endWasFirstPush = "end_was_first_push"
            }
        }

        /// The token reports as the service saw them: every request accounted for, how many
        /// the devices offered in each second after the clock's start (by intended moment), and
        /// how many the service answered in each (by the answer's moment).
        public struct Storm: Codable, Sendable, Equatable {
            public var reports: APIPhase
            /// Offered: what the devices sent, whatever the service made of it.
            public var perSecond: [Int]
            public var peakPerS: Int
            /// Answered (absent before the offered and answered rates were told apart).
            public var answeredPerSecond: [Int]?
            public var peakAnsweredPerS: Int?
            /// From each activity's start to its first token report's successful answer.
            public var startToReportMs: MillisecondPercentiles?

            /// Creates the figures.
            public init(
                reports: APIPhase,
                perSecond: [Int],
                answeredPerSecond: [Int],
                startToReportMs: MillisecondPercentiles?
            ) {
                self.reports = reports
                self.perSecond = perSecond
                peakPerS = perSecond.max() ?? 0
                self.answeredPerSecond = answeredPerSecond
                peakAnsweredPerS = answeredPerSecond.max() ?? 0
                self.startToReportMs = startToReportMs
            }

            enum CodingKeys: String, CodingKey {
                case reports
                case perSecond = "per_second"
                case peakPerS = "peak_per_s"
                case answeredPerSecond = "answered_per_second"
                case peakAnsweredPerS = "peak_answered_per_s"
                case startToReportMs = "start_to_report_ms"
            }
        }

        /// Start pushes the service sent to push-to-start tokens: `sent = accepted + refused`.
        public struct StartPushes: Codable, Sendable, Equatable {
            public var sent: Int
            public var accepted: Int
            public var refused: Int

            /// The counts: `sent` is their sum.
            public init(accepted: Int, refused: Int) {
                self.accepted = accepted
                self.refused = refused
                sent = accepted + refused
            }
        }

        /// PushBench's own CPU playing the devices, kept apart from the service's.
        public struct Emulation: Codable, Sendable, Equatable {
            /// What a device event may cost PushBench, µs: above it, the emulation may hold the
            /// service back (both share the machine), so its figures are flagged.
            public static let budgetUsPerEvent = 20.0

            public var cpuS: Double
            /// Pushes a device saw, and the devices' own steps (starts, reports, rotations,
            /// dismissals).
            public var deviceEvents: Int
            public var cpuUsPerEvent: Double?

            /// Creates the figures.
            public init(cpuS: Double, deviceEvents: Int, cpuUsPerEvent: Double?) {
                self.cpuS = cpuS
                self.deviceEvents = deviceEvents
                self.cpuUsPerEvent = cpuUsPerEvent
            }

            enum CodingKeys: String, CodingKey {
                case cpuS = "cpu_s"
                case deviceEvents = "device_events"
                case cpuUsPerEvent = "cpu_us_per_event"
            }
        }

        /// The operator's start calls, and their fan-out as push-to-start pushes that started an
        /// activity (milliseconds after each call's intended time).
        public var starts: APIPhase?
        /// Every start push that reached the mock, by APNs's answer (absent in older summaries).
        public var startPushes: StartPushes?
        public var startFanout: Fanout
        /// Push-to-start tokens the devices re-issued and reported during the run (those before
        /// the clock are the summary's `registrations`).
        public var reissuedStartTokens: APIPhase?
        public var storm: Storm
        public var closes: APIPhase?
        /// From each activity's start to the first update it showed.
        public var timeToFirstUpdateMs: MillisecondPercentiles?
        public var activities: Activities
        /// Pushes the devices dropped, whatever APNs answered, by cause.
        public var wastedPushes: Int
        public var wastedPushesByCause: [String: Int]
        /// The service's CPU seconds in each phase: `start` (to the last start),
        /// `registration_storm` (to the last first token report's answer, or the first update
        /// call's due time if sooner), `updates` (the rest). Absent when profile did not start
        /// the service.
        public var serviceCPUByPhaseS: [String: Double]?
        /// Each phase's CPU divided by its own work, µs: `start_push` (the start phase's CPU
        /// per start push), `token_report` (the storm's per token report answered),
        /// `update_push` (the updates' per update push). A phase with no work has none.
        public var serviceCPUUsPer: [String: Double]?
        public var emulation: Emulation
        /// The devices' behaviour as played: each flag's value (docs/profile-lifecycle.md says
        /// which are assumptions).
        public var devices: [String: String]

        /// Creates the figures.
        public init(
            starts: APIPhase?,
            startPushes: StartPushes?,
            startCalls: [ServiceFigures.Call],
            reissuedStartTokens: APIPhase?,
            storm: Storm,
            closes: APIPhase?,
            timeToFirstUpdateMs: MillisecondPercentiles?,
            activities: Activities,
            wastedPushesByCause: [String: Int],
            serviceCPUByPhaseS: [String: Double]?,
            serviceCPUUsPer: [String: Double]?,
            emulation: Emulation,
            devices: [String: String]
        ) {
            self.starts = starts
            self.startPushes = startPushes
            startFanout = Fanout(calls: startCalls, extra: 0, matchedByTag: 0)
            self.reissuedStartTokens = reissuedStartTokens
            self.storm = storm
            self.closes = closes
            self.timeToFirstUpdateMs = timeToFirstUpdateMs
            self.activities = activities
            self.wastedPushesByCause = wastedPushesByCause
            wastedPushes = wastedPushesByCause.values.reduce(0, +)
            self.serviceCPUByPhaseS = serviceCPUByPhaseS
            self.serviceCPUUsPer = serviceCPUUsPer
            self.emulation = emulation
            self.devices = devices
        }

        enum CodingKeys: String, CodingKey {
            case starts, storm, closes, activities, emulation, devices
            case startFanout = "start_fanout"
            case reissuedStartTokens = "reissued_start_tokens"
            case timeToFirstUpdateMs = "time_to_first_update_ms"
            case wastedPushes = "wasted_pushes"
            case wastedPushesByCause = "wasted_pushes_by_cause"
            case serviceCPUByPhaseS = "service_cpu_by_phase_s"
            case serviceCPUUsPer = "service_cpu_us_per"
            case startPushes = "start_pushes"
        }
    }
}
