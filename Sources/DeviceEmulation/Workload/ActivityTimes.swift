import ArrivalMatching
import RequestFiles
import Workload

/// Each activity's start and end on the scenario's clock, microseconds after its 0: what
/// `{{activity_start}}` and `{{activity_end}}` tell a service, and when a service that ends its
/// activities on its own clock owes each end. Sixteen bytes an activity, kept only when a file
/// needs them.
public struct ActivityTimes: Sendable {
    /// `Int64.min` for an activity with no such moment (one its scenario never starts or ends).
    private var startUs: [Int64] = []
    private var endUs: [Int64] = []

    /// No times kept.
    public init() {}

    /// The times of `scenario`'s activities, due as `timing` says from the scenario's time
    /// `originMs` (the clock's 0).
    init(scenario: Scenario, originMs: Int64, timing: EventTiming) throws {
        startUs = Array(repeating: .min, count: scenario.activities)
        endUs = startUs
        var stream = try ScenarioStream(scenario)
        while let event = stream.next() {
            let due = timing.dueMicroseconds(index: 0, timeMs: event.timeMs - originMs)
            switch event.phase {
            case .start: startUs[event.activity] = due
            case .end: endUs[event.activity] = due
            case .update: continue
            }
        }
    }

    /// Whether times were kept.
    public var isEmpty: Bool { startUs.isEmpty }

    /// `activity`'s start, microseconds after the clock's 0, if it has one.
    public func start(of activity: Int) -> Int64? { value(startUs, activity) }

    /// `activity`'s end, microseconds after the clock's 0, if it has one.
    public func end(of activity: Int) -> Int64? { value(endUs, activity) }

    private func value(_ times: [Int64], _ activity: Int) -> Int64? {
        activity < times.count && times[activity] != .min ? times[activity] : nil
    }

    /// The value of `placeholder` (`activity_start` or `activity_end`) for `activity`, as UNIX
    /// seconds counted from the clock's 0 at `startAtUnix`; `.none` when it has none.
    package func time(of placeholder: Placeholder, activity: Int, startAtUnix: Double) -> PlaceholderValue {
        let due = placeholder == .activityStart ? start(of: activity) : end(of: activity)
        return due.map { .time(startAtUnix + Double($0) / 1e6) } ?? .none
    }
}

extension ServiceSends.OwedTime {
    /// The moment, microseconds on the clock, for a start due `startUs` and an activity of
    /// `times`; `nil` when the activity has no such time.
    func microseconds(startUs: Int64?, activity: Int, times: ActivityTimes) -> Int64? {
        let base: Int64? =
            switch self.base {
            case .activityStart: times.start(of: activity)
            case .activityEnd: times.end(of: activity)
            default: startUs
            }
        return base.map { $0 + Int64((offsetSeconds * 1e6).rounded()) }
    }
}
