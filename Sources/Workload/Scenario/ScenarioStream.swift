/// The pushes of a scenario (or of one shard of its activities) in time order, produced lazily.
///
/// Memory grows with the groups under way, not with events: a heap holds one cursor per
/// active group, each cursor steps its group's timeline, and a step is fanned out to the
/// group's activities one event at a time. Groups are admitted in start order as the clock
/// reaches them. Equal times are ordered by group, then activity, so the order is a function
/// of the scenario alone. A stream of part of the activities (a shard's, a worker's) holds
/// exactly their events, as the whole stream has them.
public struct ScenarioStream: IteratorProtocol, Sequence, Sendable {
    /// The scenario being streamed.
    public let scenario: Scenario
    /// The activities this stream covers.
    public let activities: Range<Int>

    private var cohorts: [CohortPlan]
    private var cursors: [GroupCursor] = []
    private var freeCursors: [Int] = []
    private var heap = CursorHeap()
    private var fanning: Int? = nil

    /// Creates the stream of `scenario`'s events for `shard`.
    /// - Throws: `WorkloadError` when the scenario is invalid.
    public init(_ scenario: Scenario, shard: Shard = .whole) throws {
        try self.init(scenario, activities: shard.range(in: scenario.activities))
    }

    /// Creates the stream of the events of `activities`, a part of `scenario`'s that callers
    /// choose to keep related activities together (all of one device's on one worker).
    /// - Throws: `WorkloadError` when the scenario is invalid or the range is outside it.
    public init(_ scenario: Scenario, activities: Range<Int>) throws {
        try scenario.validate()
        guard activities.lowerBound >= 0, activities.upperBound <= scenario.activities else {
            throw WorkloadError("activities \(activities) are outside the scenario's 0..<\(scenario.activities)")
        }
        self.scenario = scenario
        self.activities = activities
        cohorts = scenario.placements.map { CohortPlan($0, seed: scenario.seed) }
    }

    public mutating func next() -> WorkloadEvent? {
        while true {
            if let index = fanning {
                if let event = cursors[index].nextFanout() { return event }
                fanning = nil
                rekeyTop(index, hasEvents: cursors[index].advance())
                continue
            }
            admitGroups()
            guard let index = heap.top else { return nil }
            if let start = cursors[index].nextStart() {
                rekeyTop(index, hasEvents: cursors[index].hasEvents)
                return start
            }
            fanning = index
        }
    }

    /// After the top cursor stepped: back into the heap under its next key, or retired.
    private mutating func rekeyTop(_ index: Int, hasEvents: Bool) {
        if hasEvents {
            heap.replaceTop(cursors[index].key)
        } else {
            heap.removeTop()
            freeCursors.append(index)
        }
    }

    /// Puts on the heap every group that begins no later than the heap's earliest event (or the
    /// next group when the heap is empty), so the next pop is the scenario's next event.
    private mutating func admitGroups() {
        while true {
            var earliest: (cohort: Int, start: Int64)? = nil
            for index in cohorts.indices {
                guard let start = cohorts[index].nextGroupStartMs else { continue }
                if earliest.map({ start < $0.start }) ?? true { earliest = (index, start) }
            }
            guard let candidate = earliest else { return }
            if let minimum = heap.minimumTime, candidate.start > minimum { return }
            guard let cursor = cohorts[candidate.cohort].admitNext(scenario, shardRange: activities) else { continue }
            guard cursor.hasEvents else { continue }
            let index: Int
            if let free = freeCursors.popLast() {
                cursors[free] = cursor
                index = free
            } else {
                cursors.append(cursor)
                index = cursors.count - 1
            }
            heap.push(cursor.key, cursor: index)
        }
    }
}
