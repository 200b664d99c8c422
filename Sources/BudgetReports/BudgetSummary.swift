import Basics
import Foundation
import Transport

/// `budget_summary.json`: a budget analysis, machine-readable, written and read through this one
/// type, so that `budget`, `run --budget`, `profile` and `compare` agree on every key.
///
/// Keys are snake_case with their unit in the name and are documented in `Reports/README.md`.
/// A value that does not apply (a recorded traffic's seed, a percentile of no lag) is left out.
public struct BudgetSummary: Codable, Sendable, Equatable {
    /// The schema this build writes and reads.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    /// Always `budget`: what tells a budget summary from a run's.
    public var kind: String
    public var runID: String
    public var commandLine: String
    /// That every figure is an estimate of an undisclosed budget, in words.
    public var estimateNote: String
    public var interrupted: Bool
    public var input: Input
    public var parameters: Parameters
    public var pushes: Pushes
    /// Pushes by `BudgetOutcome` raw value.
    public var outcomes: [String: Int]
    public var droppedEndedByCause: DroppedEnded
    public var activities: Activities
    public var spent: Spent
    /// Display-lag percentiles, milliseconds, keyed `p50` … `max`: of all updates, of key events.
    public var displayLagMs: [String: UInt64]
    public var keyDisplayLagMs: [String: UInt64]
    public var updatesNeverShown: Int
    public var keyEventsNeverShown: Int
    /// How long after their start activities were first throttled, percentiles in milliseconds.
    public var firstThrottleAfterStartMs: [String: UInt64]
    public var byEvent: [EventRow]
    public var simulation: Simulation
    public var machine: MachineDescription
    public var recommendations: Recommendations?
    /// For a run's or a profile's accepted pushes: how they were fed to the model.
    public var runFeed: RunFeed?

    /// What was analysed.
    public struct Input: Codable, Sendable, Equatable {
        /// `scenario`, `traffic` or `run`.
        public var kind: String
        public var name: String
        public var activities: Int
        public var seed: UInt64?
        public var activitiesPerDevice: Int

        enum CodingKeys: String, CodingKey {
            case kind, name, activities, seed
            case activitiesPerDevice = "activities_per_device"
        }
    }

    /// The model's parameters, and where they came from.
    public struct Parameters: Codable, Sendable, Equatable {
        public var preset: String
        public var burstUpdates: Double
        public var perHourUpdates: Double
        public var lowPriorityIntervalS: Double
        public var frequentUpdates: Bool
        public var frequentFactor: Double
        public var frequentOffFraction: Double
        public var startBurstStarts: Double
        public var startPerHourStarts: Double
        public var activeLimitS: Double
        /// The preset's source, or the flags that overrode it.
        public var source: String

        enum CodingKeys: String, CodingKey {
            case preset, source
            case burstUpdates = "burst_updates"
            case perHourUpdates = "per_hour_updates"
            case lowPriorityIntervalS = "low_priority_interval_s"
            case frequentUpdates = "frequent_updates"
            case frequentFactor = "frequent_factor"
            case frequentOffFraction = "frequent_off_fraction"
            case startBurstStarts = "start_burst_starts"
            case startPerHourStarts = "start_per_hour_starts"
            case activeLimitS = "active_limit_s"
        }

        /// The parameters as `name=value` text by key, for a gate's report.
        public var byName: [String: String] {
            let data = (try? JSONEncoder().encode(self)) ?? Data()
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            return object.filter { $0.key != CodingKeys.source.rawValue }.mapValues { "\($0)" }
        }
    }

    /// Pushes modelled, in all and by priority.
    public struct Pushes: Codable, Sendable, Equatable {
        public var total: Int
        public var p10: Int
        public var p5: Int
        public var p1: Int
    }

    /// Updates dropped because their activity had ended, by why it had.
    public struct DroppedEnded: Codable, Sendable, Equatable {
        public var afterEnd: Int
        public var afterActiveLimit: Int

        enum CodingKeys: String, CodingKey {
            case afterEnd = "after_end"
            case afterActiveLimit = "after_active_limit"
        }
    }

    /// What became of the activities.
    public struct Activities: Codable, Sendable, Equatable {
        public var begun: Int
        public var notStarted: Int
        public var throttled: Int
        public var frequentUpdates: Int
        public var endsNotShown: Int
        /// Activities throttled at least once, as a share of those begun (0 to 1).
        public var throttledShare: Double

        enum CodingKeys: String, CodingKey {
            case begun, throttled
            case notStarted = "not_started"
            case frequentUpdates = "frequent_updates"
            case endsNotShown = "ends_not_shown"
            case throttledShare = "throttled_share"
        }
    }

    /// What the sender's policy spent, for a budget gate: priority-10 pushes per activity-hour,
    /// and the share of key events shown within the target.
    public struct Spent: Codable, Sendable, Equatable {
        public var activityHours: Double
        public var p10PerActivityHour: Double
        public var keyLagTargetS: Double
        public var keyEventsWithinTargetShare: Double

        enum CodingKeys: String, CodingKey {
            case activityHours = "activity_hours"
            case p10PerActivityHour = "p10_per_activity_hour"
            case keyLagTargetS = "key_lag_target_s"
            case keyEventsWithinTargetShare = "key_events_within_target_share"
        }
    }

    /// One event kind's pushes and what became of them: `budget_by_event.csv`'s row, whose
    /// columns these keys are.
    public struct EventRow: Codable, Sendable, Equatable {
        public var event: String
        public var keyEvent: Bool
        public var pushesP10: Int
        public var pushesP5: Int
        public var pushesP1: Int
        /// Pushes by outcome, one property for each `BudgetOutcome`.
        public var pushesShown: Int
        public var pushesThrottled: Int
        public var pushesCoalesced: Int
        public var pushesDroppedEnded: Int
        public var pushesDroppedStale: Int
        public var pushesStartThrottled: Int
        public var pushesNotStarted: Int
        public var displayLagP50Ms: UInt64?
        public var displayLagP99Ms: UInt64?
        public var displayLagMaxMs: UInt64?
        public var updatesNeverShown: Int

        enum CodingKeys: String, CodingKey, CaseIterable {
            case event
            case keyEvent = "key_event"
            case pushesP10 = "pushes_p10"
            case pushesP5 = "pushes_p5"
            case pushesP1 = "pushes_p1"
            case pushesShown = "pushes_shown"
            case pushesThrottled = "pushes_throttled"
            case pushesCoalesced = "pushes_coalesced"
            case pushesDroppedEnded = "pushes_dropped_ended"
            case pushesDroppedStale = "pushes_dropped_stale"
            case pushesStartThrottled = "pushes_start_throttled"
            case pushesNotStarted = "pushes_not_started"
            case displayLagP50Ms = "display_lag_p50_ms"
            case displayLagP99Ms = "display_lag_p99_ms"
            case displayLagMaxMs = "display_lag_max_ms"
            case updatesNeverShown = "updates_never_shown"
        }

        /// The CSV's columns, in order.
        public static var columns: [String] { CodingKeys.allCases.map(\.rawValue) }

        /// The row's values as the CSV writes them (empty: no lag to report).
        public var csvValues: [String] {
            [event, "\(keyEvent)"]
                + [
                    pushesP10, pushesP5, pushesP1, pushesShown, pushesThrottled, pushesCoalesced, pushesDroppedEnded,
                    pushesDroppedStale, pushesStartThrottled, pushesNotStarted,
                ].map { "\($0)" }
                + [displayLagP50Ms, displayLagP99Ms, displayLagMaxMs].map { $0.map { "\($0)" } ?? "" }
                + ["\(updatesNeverShown)"]
        }
    }

    /// How fast the model ran.
    public struct Simulation: Codable, Sendable, Equatable {
        public var threads: Int
        public var wallS: Double
        public var pushesPerS: Double

        enum CodingKeys: String, CodingKey {
            case threads
            case wallS = "wall_s"
            case pushesPerS = "pushes_per_s"
        }
    }

    /// What to send instead: steady rates that stay within the budget, and the cheapest
    /// priority policy that shows key events in time.
    public struct Recommendations: Codable, Sendable, Equatable {
        public var steadyP10: [SteadyRate]
        public var priorityPolicy: PriorityPolicySearch?

        enum CodingKeys: String, CodingKey {
            case steadyP10 = "steady_p10"
            case priorityPolicy = "priority_policy"
        }

        /// One steady priority-10 rate that stays within the budget.
        public struct SteadyRate: Codable, Sendable, Equatable {
            public var activityDurationS: Int
            public var frequentUpdates: Bool
            public var intervalS: Int
            public var updatesPerHour: Double

            enum CodingKeys: String, CodingKey {
                case activityDurationS = "activity_duration_s"
                case frequentUpdates = "frequent_updates"
                case intervalS = "interval_s"
                case updatesPerHour = "updates_per_hour"
            }
        }

        /// The search for the cheapest policy, the scenario's own, and the one recommended (or
        /// the best share reached when none met the goal).
        public struct PriorityPolicySearch: Codable, Sendable, Equatable {
            public var keyLagTargetS: Double
            public var requiredShare: Double
            public var sampleActivities: Int
            public var candidatesTried: Int
            public var current: Policy
            public var recommended: Policy?
            public var bestShareReached: Double?

            enum CodingKeys: String, CodingKey {
                case current, recommended
                case keyLagTargetS = "key_lag_target_s"
                case requiredShare = "required_share"
                case sampleActivities = "sample_activities"
                case candidatesTried = "candidates_tried"
                case bestShareReached = "best_share_reached"
            }
        }

        /// A priority policy and what it costs.
        public struct Policy: Codable, Sendable, Equatable {
            public var kindsAtP10: [String]
            public var p10UpdatesPerActivity: Double
            public var keyEventsWithinTargetShare: Double
            public var p10ThrottledShare: Double

            enum CodingKeys: String, CodingKey {
                case kindsAtP10 = "kinds_at_p10"
                case p10UpdatesPerActivity = "p10_updates_per_activity"
                case keyEventsWithinTargetShare = "key_events_within_target_share"
                case p10ThrottledShare = "p10_throttled_share"
            }
        }
    }

    /// How a run's accepted pushes were modelled.
    public struct RunFeed: Codable, Sendable, Equatable {
        /// The `BudgetClock` each push reached its device on, and what that means.
        public var clock: String
        public var clockMeaning: String
        /// The first and last push's time on the clock, milliseconds; absent when none was
        /// accepted.
        public var firstPushMs: Int64?
        public var lastPushMs: Int64?
        /// Whether the run left part of the scenario unsent; then the whole scenario's pushes
        /// and last event, when known.
        public var partial: Bool
        public var scenarioPushes: Int?
        public var scenarioLastEventMs: Int64?

        enum CodingKeys: String, CodingKey {
            case clock, partial
            case clockMeaning = "clock_meaning"
            case firstPushMs = "first_push_ms"
            case lastPushMs = "last_push_ms"
            case scenarioPushes = "scenario_pushes"
            case scenarioLastEventMs = "scenario_last_event_ms"
        }
    }

    enum CodingKeys: String, CodingKey {
        case kind, interrupted, input, parameters, pushes, outcomes, activities, spent, simulation, machine
        case recommendations
        case schemaVersion = "schema_version"
        case runID = "run_id"
        case commandLine = "command_line"
        case estimateNote = "estimate_note"
        case droppedEndedByCause = "dropped_ended_by_cause"
        case displayLagMs = "display_lag_ms"
        case keyDisplayLagMs = "key_display_lag_ms"
        case updatesNeverShown = "updates_never_shown"
        case keyEventsNeverShown = "key_events_never_shown"
        case firstThrottleAfterStartMs = "first_throttle_after_start_ms"
        case byEvent = "by_event"
        case runFeed = "run_feed"
    }

    /// The summary as the file holds it: pretty-printed, keys sorted.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}

extension BudgetSummary {
    /// Reads `data`, a budget summary's bytes.
    public init(decoding data: Data) throws {
        self = try JSONDecoder().decode(Self.self, from: data)
    }
}
