import ArrivalMatching
import Workload

extension ServiceWorkload {
    /// The operator's start of activities of a push-to-start cohort: one call for a group, at
    /// its first activity's start, or one an activity at its own (`per: activity`). The service
    /// fans it out as push-to-start pushes to the devices it learned of from their reports.
    public struct Start: Sendable {
        /// Microseconds after the clock's 0 (the first start) at which it is due.
        public var dueMicroseconds: Int64
        /// When its start pushes are owed: when it is due, unless the service starts on its own
        /// clock at a time the call gave (`service_sends.start`).
        public var owedMicroseconds: Int64
        public var group: Int
        /// The activities it starts: the group's push-to-start activities, or its own.
        public var activities: Range<Int>
        public var activityKind: ActivityKind
        public var state: ContentState
    }

    /// An activity of a local-start cohort, which its app starts with no push at its time.
    public struct LocalStart: Sendable {
        public var activity: Int
        public var dueMicroseconds: Int64
    }

    /// The integer members the app's attributes type decodes (every kind: its group).
    public static let attributeMembers = ["groupID"]
}

/// The scenario's starts as a lifecycle plays them: the push-to-start cohorts' as the
/// operator's calls, the others' as their apps' own starts, timed from the first start.
struct LifecycleStarts {
    var starts: [ServiceWorkload.Start] = []
    var localStarts: [ServiceWorkload.LocalStart] = []
    /// The scenario's time of the first start, milliseconds: the clock's 0.
    var originMs: Int64 = 0

    /// Reads the starts of `scenario`, whose local-start cohorts it marks push-to-start so that
    /// the stream gives their start times too.
    init(scenario: inout Scenario, perActivity: Bool, timing: EventTiming) throws {
        let local = scenario.cohorts.indices.filter { !scenario.cohorts[$0].pushToStart }
        for index in local { scenario.cohorts[index].pushToStart = true }
        var stream = try ScenarioStream(scenario)
        var byGroup: [Int: Int] = [:]
        var startTimes: [Int64] = []
        var localTimes: [Int64] = []
        var first: Int64?
        while let event = stream.next() {
            guard event.phase == .start else { continue }
            first = first ?? event.timeMs
            if local.contains(event.cohort) {
                localStarts.append(ServiceWorkload.LocalStart(activity: event.activity, dueMicroseconds: 0))
                localTimes.append(event.timeMs)
            } else if !perActivity, let index = byGroup[event.group] {
                let range = starts[index].activities
                starts[index].activities =
                    min(range.lowerBound, event.activity)..<max(range.upperBound, event.activity + 1)
            } else {
                byGroup[event.group] = starts.count
                startTimes.append(event.timeMs)
                starts.append(
                    ServiceWorkload.Start(
                        dueMicroseconds: 0,
                        owedMicroseconds: 0,
                        group: event.group,
                        activities: event.activity..<(event.activity + 1),
                        activityKind: event.activityKind,
                        state: event.state
                    )
                )
            }
        }
        originMs = first ?? 0
        for index in starts.indices {
            starts[index].dueMicroseconds = timing.dueMicroseconds(index: index, timeMs: startTimes[index] - originMs)
            starts[index].owedMicroseconds = starts[index].dueMicroseconds
        }
        for index in localStarts.indices {
            localStarts[index].dueMicroseconds = timing.dueMicroseconds(
                index: index,
                timeMs: localTimes[index] - originMs
            )
        }
    }
}
