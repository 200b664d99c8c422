import Histogram

/// What a budget run counted: outcomes by label and priority, the per-minute series, display
/// lags, and sampled activities. Each worker keeps one; `merge` adds them exactly.
public struct BudgetTally: Sendable {
    /// The names pushes are grouped by.
    public let labels: PushLabels
    /// Pushes by label, priority (10, 5, 1) and outcome: index
    /// `outcomeSlot(label:priorityIndex:outcome:)`.
    public internal(set) var outcomes: [Int]
    /// Pushes dropped as `dropped_ended` because they came after the activity's `end`.
    public internal(set) var droppedAfterEnd = 0
    /// Pushes dropped as `dropped_ended` because they came after the active limit.
    public internal(set) var droppedAfterLimit = 0
    /// The series, one entry per simulated minute from minute 0.
    public internal(set) var minutes: [BudgetMinute] = []
    /// Per minute, live activities by whole percent of their priority-10 bucket left at the
    /// minute's end: index `minute · 101 + percent`.
    public internal(set) var remainingPercent: [Int] = []
    /// Display lag of every update the device took (shown, throttled or coalesced) that a
    /// shown state later covered, ms, per label.
    public internal(set) var lagMsByLabel: [Histogram<UInt64>]
    /// Updates the device took that no shown state ever covered, per label.
    public internal(set) var neverShownByLabel: [Int]
    /// From an activity's start to its first throttle, ms, one value per throttled activity.
    public internal(set) var firstThrottleAfterStartMs = BudgetTally.makeHistogram()
    /// Activities that began (started, or took a first update).
    public internal(set) var activitiesBegun = 0
    /// Activities whose start was throttled.
    public internal(set) var activitiesNotStarted = 0
    /// Activities throttled at least once.
    public internal(set) var activitiesThrottled = 0
    /// Activities with frequent updates on.
    public internal(set) var activitiesFrequent = 0
    /// Broadcasts the sender sent (iOS 18 channels), each reaching many devices.
    public internal(set) var broadcasts = 0
    /// Pushes the devices received from broadcasts, one per subscriber per broadcast; each is
    /// also among `pushes` and its outcomes.
    public internal(set) var broadcastDeliveries = 0
    /// Activities sent an `end` that the device never showed (throttled or coalesced): they
    /// stay on screen, showing their last state, until the active limit.
    public internal(set) var endsNotShown = 0
    /// Sampled activities, by activity index.
    public internal(set) var sampled: [ActivityRecord] = []

    /// Creates an empty tally.
    public init(labels: PushLabels) {
        self.labels = labels
        outcomes = [Int](repeating: 0, count: Self.outcomeSlots(labels: labels))
        lagMsByLabel = labels.names.map { _ in BudgetTally.makeHistogram() }
        neverShownByLabel = [Int](repeating: 0, count: labels.names.count)
    }

    /// Lags up to 30 days in ms, 3 significant digits.
    static func makeHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(highestTrackableValue: 30 * 86_400_000, numberOfSignificantValueDigits: .three)
    }

    /// The priorities pushes are counted by: 10, 5 and 1 (`priorityIndex`).
    static let priorities = 3

    /// Where pushes of `label` at `priorityIndex` with `outcome` are counted in `outcomes`: the
    /// one place the layout is written, which the model fills and the tally reads.
    @inline(__always)
    static func outcomeSlot(label: Int, priorityIndex: Int, outcome: Int) -> Int {
        (label * priorities + priorityIndex) * BudgetOutcome.allCases.count + outcome
    }

    /// How many counters `outcomes` holds for `labels`.
    static func outcomeSlots(labels: PushLabels) -> Int {
        labels.names.count * priorities * BudgetOutcome.allCases.count
    }

    /// 0, 1 or 2 for priority 10 (or any value above 5), 5 (or 2 to 5), 1 (or below).
    @inline(__always)
    static func priorityIndex(_ priority: Int) -> Int {
        priority > 5 ? 0 : priority > 1 ? 1 : 2
    }

    /// Makes sure the series reaches `minute`.
    mutating func extend(through minute: Int) {
        guard minute >= minutes.count else { return }
        minutes.append(contentsOf: repeatElement(BudgetMinute(), count: minute + 1 - minutes.count))
        remainingPercent.append(contentsOf: repeatElement(0, count: minutes.count * 101 - remainingPercent.count))
    }

    /// Pushes with `outcome` and `label` (all labels when `nil`) at any priority.
    public func count(_ outcome: BudgetOutcome, label: Int? = nil) -> Int {
        let labels = label.map { [$0] } ?? Array(self.labels.names.indices)
        return labels.reduce(0) { sum, label in
            sum
                + (0..<Self.priorities).reduce(0) {
                    $0 + outcomes[Self.outcomeSlot(label: label, priorityIndex: $1, outcome: outcome.ordinal)]
                }
        }
    }

    /// Pushes with `label` at priority index `priorityIndex` (0: 10, 1: 5, 2: 1), any outcome.
    public func pushes(label: Int, priorityIndex: Int) -> Int {
        let base = Self.outcomeSlot(label: label, priorityIndex: priorityIndex, outcome: 0)
        return outcomes[base..<base + BudgetOutcome.allCases.count].reduce(0, +)
    }

    /// Every push counted.
    public var pushes: Int { outcomes.reduce(0, +) }

    /// Pushes the sender sent: one per push to a token, one per broadcast whatever its reach.
    public var senderPushes: Int { pushes - broadcastDeliveries + broadcasts }

    /// Updates the device took that no shown state ever covered.
    public var neverShown: Int { neverShownByLabel.reduce(0, +) }

    /// Display lag of all updates, ms.
    public var lagMs: Histogram<UInt64> { lagMs { _ in true } }

    /// Display lag of key events, ms.
    public var keyLagMs: Histogram<UInt64> { lagMs { labels.isKey[$0] } }

    private func lagMs(ofLabels included: (Int) -> Bool) -> Histogram<UInt64> {
        var merged = Self.makeHistogram()
        for (label, histogram) in lagMsByLabel.enumerated() where included(label) { merged.add(histogram) }
        return merged
    }

    /// Display lag at `percentile` (0 to 100) of all updates, or of key events only, ms; `nil`
    /// when no such update was shown.
    public func lagMs(atPercentile percentile: Double, keyEventsOnly: Bool = false) -> UInt64? {
        let histogram = keyEventsOnly ? keyLagMs : lagMs
        return histogram.totalCount > 0 ? histogram.valueAtPercentile(percentile) : nil
    }

    /// Key events never shown.
    public var keyNeverShown: Int {
        neverShownByLabel.enumerated().reduce(0) { $0 + (labels.isKey[$1.offset] ? $1.element : 0) }
    }

    /// Share of key events (never-shown ones included, as misses) shown within `ms`.
    public func keyShareShown(withinMs ms: UInt64) -> Double {
        let lags = keyLagMs
        let total = Int(lags.totalCount) + keyNeverShown
        guard total > 0 else { return 1 }
        let within = lags.count(within: 0...ms)
        return Double(within) / Double(total)
    }

    /// Adds `other`, a tally of other activities with the same labels.
    public mutating func merge(_ other: BudgetTally) {
        precondition(labels == other.labels, "tallies with different labels cannot merge")
        for index in outcomes.indices { outcomes[index] += other.outcomes[index] }
        droppedAfterEnd += other.droppedAfterEnd
        droppedAfterLimit += other.droppedAfterLimit
        extend(through: other.minutes.count - 1)
        for index in other.minutes.indices { minutes[index].add(other.minutes[index]) }
        for index in other.remainingPercent.indices { remainingPercent[index] += other.remainingPercent[index] }
        for index in lagMsByLabel.indices {
            lagMsByLabel[index].add(other.lagMsByLabel[index])
            neverShownByLabel[index] += other.neverShownByLabel[index]
        }
        firstThrottleAfterStartMs.add(other.firstThrottleAfterStartMs)
        activitiesBegun += other.activitiesBegun
        endsNotShown += other.endsNotShown
        broadcasts += other.broadcasts
        broadcastDeliveries += other.broadcastDeliveries
        activitiesNotStarted += other.activitiesNotStarted
        activitiesThrottled += other.activitiesThrottled
        activitiesFrequent += other.activitiesFrequent
        sampled = (sampled + other.sampled).sorted { $0.activity < $1.activity }
    }

    /// The `fraction` quantile (0.5 for the median) of bucket percent left across the activities
    /// live at the end of `minute`, or `nil` when none was.
    public func remainingPercent(minute: Int, quantile fraction: Double) -> Int? {
        let bins = remainingPercent[minute * 101..<minute * 101 + 101]
        let total = bins.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(total)).rounded(.up)))
        var seen = 0
        for (percent, count) in bins.enumerated() {
            seen += count
            if seen >= rank { return percent }
        }
        return 100
    }
}
