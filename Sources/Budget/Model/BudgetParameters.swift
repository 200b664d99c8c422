/// The numbers of the device-side budget model (`docs/budget-model.md`).
///
/// Apple publishes none of them (`docs/apns.md` §3.6), so every one is a
/// parameter, presets are named for the source they follow, and every report prints the values
/// it used.
public struct BudgetParameters: Sendable, Equatable {
    /// The preset these values started from, or `custom` once one was overridden.
    public var name: String
    /// Priority-10 bucket capacity, updates; the bucket is full when an activity starts.
    public var burst: Double
    /// Priority-10 refill, updates per hour, added continuously.
    public var perHour: Double
    /// Priority 5 and 1: at most one shown per window of this many seconds.
    public var lowPriorityIntervalSeconds: Double
    /// Whether the app sets `NSSupportsLiveActivitiesFrequentUpdates`.
    public var frequentUpdates: Bool
    /// What frequent updates multiply `burst` and `perHour` by.
    public var frequentFactor: Double
    /// Share of users who turned frequent updates off in Settings (their activities get the
    /// plain budget even when the app asks for frequent updates).
    public var frequentOffFraction: Double
    /// Push-to-start bucket capacity per device, starts.
    public var startBurst: Double
    /// Push-to-start refill per device, starts per hour.
    public var startPerHour: Double
    /// How long an activity may stay live, seconds (8 h, `docs/apns.md` §3.4).
    public var activeLimitSeconds: Double

    /// Creates parameters; unnamed ones take the `community` preset's values.
    public init(
        name: String = "custom",
        burst: Double = 15,
        perHour: Double = 15,
        lowPriorityIntervalSeconds: Double = 30,
        frequentUpdates: Bool = false,
        frequentFactor: Double = 16,
        frequentOffFraction: Double = 0,
        startBurst: Double = 10,
        startPerHour: Double = 10,
        activeLimitSeconds: Double = 8 * 3600
    ) {
        self.name = name
        self.burst = burst
        self.perHour = perHour
        self.lowPriorityIntervalSeconds = lowPriorityIntervalSeconds
        self.frequentUpdates = frequentUpdates
        self.frequentFactor = frequentFactor
        self.frequentOffFraction = frequentOffFraction
        self.startBurst = startBurst
        self.startPerHour = startPerHour
        self.activeLimitSeconds = activeLimitSeconds
    }

    /// Checks the values a model cannot run with.
    /// - Throws: `BudgetError` naming the parameter.
    public func validate() throws {
        for (label, value) in [
            ("burst", burst), ("per-hour", perHour), ("frequent-factor", frequentFactor),
            ("start-burst", startBurst), ("active-limit", activeLimitSeconds),
        ] where !(value > 0 && value.isFinite) {
            throw BudgetError("\(label) must be a positive number, not \(value)")
        }
        for (label, value) in [("low-priority-interval", lowPriorityIntervalSeconds), ("start-per-hour", startPerHour)]
        where !(value >= 0 && value.isFinite) {
            throw BudgetError("\(label) must be zero or more, not \(value)")
        }
        guard (0...1).contains(frequentOffFraction) else {
            throw BudgetError("frequent-off must be between 0 and 1, not \(frequentOffFraction)")
        }
    }

    /// The parameters as `summary.json` and the reports print them, units in the names.
    public var dictionary: [String: Any] {
        [
            "preset": name, "burst_updates": burst, "per_hour_updates": perHour,
            "low_priority_interval_s": lowPriorityIntervalSeconds, "frequent_updates": frequentUpdates,
            "frequent_factor": frequentFactor, "frequent_off_fraction": frequentOffFraction,
            "start_burst_starts": startBurst, "start_per_hour_starts": startPerHour,
            "active_limit_s": activeLimitSeconds,
        ]
    }
}

/// Bad budget input: a parameter, a preset name, a traffic file.
public struct BudgetError: Error, CustomStringConvertible {
    public let description: String

    /// Creates an error with its message.
    public init(_ description: String) {
        self.description = description
    }
}
