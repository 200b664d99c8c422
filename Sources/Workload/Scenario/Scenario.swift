/// A population of Live Activities and how they are updated: what `run` sends and `budget`
/// simulates.
///
/// A scenario is a list of cohorts. Each cohort is `activities` activities of one kind, split
/// into `groups` fan-out groups: every activity in a group follows the same timeline (the
/// same match, the same sale), so one event goes to the whole group at once, as a push
/// provider's "update this group" call does. Groups begin at times drawn from
/// `groupStarts`; a group's activities start (push-to-start) spread over its first `joinSeconds`,
/// then its timeline runs. Times are simulated milliseconds from the scenario's start.
public struct Scenario: Sendable, Equatable {
    /// A short name, used in reports.
    public var name: String
    /// What the scenario models, for people.
    public var description: String
    /// Seed of every random choice; the same seed gives the same events.
    public var seed: UInt64
    /// The populations, in activity-id order.
    public var cohorts: [Cohort]
    /// How long an activity may stay active, seconds (iOS ends it after 8 hours,
    /// `docs/apns.md` §3.4).
    public var activeLimitSeconds: Int64
    /// What the sender does when an activity reaches the limit.
    public var pastLimit: PastLimitPolicy

    /// What a sender does with an activity that reached the active limit.
    public enum PastLimitPolicy: String, Sendable, CaseIterable {
        /// Sends `end` when the group's earliest activity reaches the limit, and nothing after.
        case end
        /// Keeps sending as if nothing happened (the device drops those pushes).
        case keepSending = "keep-sending"
    }

    /// How a cohort's updates and ends reach its activities.
    public enum Delivery: String, Sendable, CaseIterable {
        /// One push per activity, to its update token (`/3/device/<token>`).
        case token
        /// One broadcast per fan-out group, to the group's channel (`/4/broadcasts/apps/<bundle>`,
        /// iOS 18): each activity subscribes when it starts (`input-push-channel`), and every
        /// subscriber's device spends its own budget on each broadcast.
        case broadcast
    }

    /// What APNs keeps of a broadcast channel's messages for devices offline when it was sent,
    /// fixed when the channel is created (`message-storage-policy`).
    public enum ChannelStorage: String, Sendable, CaseIterable {
        /// Nothing (policy 0): for frequent updates such as a match; broadcasts must carry
        /// `apns-expiration: 0`, and Apple allows a higher publishing budget.
        case none
        /// The most recent message (policy 1), for infrequent updates.
        case mostRecent = "most-recent"

        /// The policy number the channel API takes.
        public var policy: Int { self == .none ? 0 : 1 }
    }

    /// Which of a cohort's timeline steps between its start and its end are sent.
    public enum Updates: String, Sendable, CaseIterable {
        /// Every update: a match's minutes, goals and cards.
        case all
        /// None: starts and ends only, as a scheduler that starts a class and ends it at its
        /// countdown's target sends.
        case none
    }

    /// When a cohort's groups begin.
    public enum StartDistribution: String, Sendable, CaseIterable {
        /// Every group at `atSeconds` (a match everybody watches).
        case atOnce = "at-once"
        /// Evenly over `[atSeconds, atSeconds + spreadSeconds)` (deliveries over a day).
        case uniform
    }

    /// Activities of one kind.
    public struct Cohort: Sendable, Equatable {
        /// The timeline model.
        public var kind: ActivityKind
        /// How many activities.
        public var activities: Int
        /// How many fan-out groups they form (1 to `activities`).
        public var groups: Int
        /// How group start times are spread.
        public var distribution: StartDistribution
        /// When the first group may begin, seconds.
        public var atSeconds: Int64
        /// Over how long groups begin, seconds (`uniform` only).
        public var spreadSeconds: Int64
        /// Over how long a group's activities start before its timeline runs, seconds.
        public var joinSeconds: Int64
        /// Whether activities are started by a push-to-start push (iOS 17.2+); otherwise the app
        /// starts them and the first push is an update.
        public var pushToStart: Bool
        /// Whether the start push asks for a per-activity update token (`input-push-token`).
        public var inputPushToken: Bool
        /// Share of activities whose update token rotates once, at a moment in their first
        /// `rotationWithinSeconds`.
        public var rotateFraction: Double
        /// The window in which rotations happen, seconds after the activity starts.
        public var rotationWithinSeconds: Int64
        /// `apns-priority` per event kind: `kind.defaultPriorities` overridden by those given.
        public var priorities: [EventKind: Int]
        /// Whether updates go to each activity's token or to its group's broadcast channel.
        public var delivery: Delivery
        /// With broadcast, what the groups' channels store.
        public var channelStorage: ChannelStorage
        /// Whether the updates between start and end are sent (`none`: starts and ends only).
        public var updates: Updates

        /// Creates a cohort with the kind's defaults for everything not given.
        public init(
            kind: ActivityKind,
            activities: Int,
            groups: Int? = nil,
            distribution: StartDistribution = .atOnce,
            atSeconds: Int64 = 0,
            spreadSeconds: Int64 = 0,
            joinSeconds: Int64? = nil,
            pushToStart: Bool = true,
            inputPushToken: Bool = true,
            rotateFraction: Double = 0,
            rotationWithinSeconds: Int64 = 3600,
            priorities: [EventKind: Int] = [:],
            delivery: Delivery = .token,
            channelStorage: ChannelStorage = .none,
            updates: Updates = .all
        ) {
            self.kind = kind
            self.activities = activities
            self.groups = groups ?? (kind == .football || kind == .flashSale ? 1 : activities)
            self.distribution = distribution
            self.atSeconds = atSeconds
            self.spreadSeconds = spreadSeconds
            self.joinSeconds = joinSeconds ?? (kind == .football || kind == .flashSale ? 1800 : 0)
            self.pushToStart = pushToStart
            self.inputPushToken = inputPushToken
            self.rotateFraction = rotateFraction
            self.rotationWithinSeconds = rotationWithinSeconds
            self.priorities = kind.defaultPriorities.merging(priorities) { _, chosen in chosen }
            self.delivery = delivery
            self.channelStorage = channelStorage
            self.updates = updates
        }

        /// The priority of `event` under the cohort's policy.
        public func priority(of event: EventKind) -> Int {
            priorities[event] ?? 10
        }
    }

    /// Creates a scenario.
    public init(
        name: String,
        description: String = "",
        seed: UInt64 = 1,
        cohorts: [Cohort],
        activeLimitSeconds: Int64 = 8 * 3600,
        pastLimit: PastLimitPolicy = .end
    ) {
        self.name = name
        self.description = description
        self.seed = seed
        self.cohorts = cohorts
        self.activeLimitSeconds = activeLimitSeconds
        self.pastLimit = pastLimit
    }

    /// Activities in all cohorts.
    public var activities: Int { cohorts.reduce(0) { $0 + $1.activities } }

    /// The same scenario with every cohort updated by `delivery` (`--delivery`).
    public func delivered(by delivery: Delivery) -> Scenario {
        var copy = self
        for index in copy.cohorts.indices { copy.cohorts[index].delivery = delivery }
        return copy
    }

    /// Checks what the types cannot: counts, ranges, and priorities valid for the kind.
    /// - Throws: `WorkloadError` naming the field (`cohorts[0].groups`) and the problem.
    public func validate() throws {
        guard !cohorts.isEmpty else { throw WorkloadError("cohorts: at least one cohort is needed") }
        guard activeLimitSeconds > 0 else { throw WorkloadError("active_limit_s: must be positive") }
        for (index, cohort) in cohorts.enumerated() {
            let field = "cohorts[\(index)]"
            guard cohort.activities >= 1 else { throw WorkloadError("\(field).activities: must be at least 1") }
            guard (1...cohort.activities).contains(cohort.groups) else {
                throw WorkloadError(
                    "\(field).groups: must be 1 to activities (\(cohort.activities)), not \(cohort.groups)"
                )
            }
            for (name, value) in [
                ("at_s", cohort.atSeconds), ("spread_s", cohort.spreadSeconds), ("join_s", cohort.joinSeconds),
            ] where value < 0 {
                throw WorkloadError("\(field).\(name): must not be negative, not \(value)")
            }
            // A group's activities join over its first join_s, and all end at active_limit_s
            // from the group's start: a joiner past the limit would be ended before it started.
            if pastLimit == .end, cohort.joinSeconds >= activeLimitSeconds {
                throw WorkloadError(
                    "\(field).join_s: \(cohort.joinSeconds) s is not shorter than active_limit_s (\(activeLimitSeconds) s), so its last activities would end before they start; shorten join_s or lengthen active_limit_s"
                )
            }
            guard cohort.rotationWithinSeconds > 0 else {
                throw WorkloadError("\(field).rotation_within_s: must be positive")
            }
            guard (0...1).contains(cohort.rotateFraction) else {
                throw WorkloadError("\(field).rotate_fraction: must be between 0 and 1, not \(cohort.rotateFraction)")
            }
            let allowed = Set(cohort.kind.eventKinds + [.start, .limit])
            for (event, priority) in cohort.priorities.sorted(by: { $0.key < $1.key }) {
                guard allowed.contains(event) else {
                    throw WorkloadError(
                        "\(field).priorities.\(event.rawValue): \(cohort.kind.rawValue) has no such event; it has "
                            + allowed.map(\.rawValue).sorted().joined(separator: ", ")
                    )
                }
                guard [1, 5, 10].contains(priority) else {
                    throw WorkloadError("\(field).priorities.\(event.rawValue): must be 1, 5 or 10, not \(priority)")
                }
            }
        }
    }
}
