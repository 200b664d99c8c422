/// What happened, as a sender's product team names it; the priority policy is keyed by it.
public enum EventKind: String, Sendable, CaseIterable, Comparable {
    /// The activity is started with a push-to-start push.
    case start
    /// Football: a half kicks off.
    case kickOff = "kick-off"
    /// Football: the clock passes a minute.
    case minute
    /// Football: a goal.
    case goal
    /// Football: a yellow or red card.
    case card
    /// Football: the half-time whistle.
    case halfTime = "half-time"
    /// Football: the final whistle; the activity ends.
    case fullTime = "full-time"
    /// Delivery and ride share: the order or ride moves to its next status.
    case status
    /// Delivery: the estimated arrival is recomputed.
    case eta
    /// Ride share: the driver's position and ETA.
    case position
    /// Upload: bytes sent so far.
    case progress
    /// Upload: done; the activity ends.
    case complete
    /// Flash sale: seconds until the sale opens.
    case countdown
    /// Flash sale: items left.
    case stock
    /// The activity ends at the end of its timeline (delivered, dropped off, sale closed).
    case finish
    /// The sender ends the activity because it reached the 8-hour active limit.
    case limit

    public static func < (lhs: EventKind, rhs: EventKind) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The kind's position in `allCases`, found without hashing its name: tables indexed by it
    /// are cheaper per event than dictionaries.
    public var ordinal: Int {
        switch self {
        case .start: 0
        case .kickOff: 1
        case .minute: 2
        case .goal: 3
        case .card: 4
        case .halfTime: 5
        case .fullTime: 6
        case .status: 7
        case .eta: 8
        case .position: 9
        case .progress: 10
        case .complete: 11
        case .countdown: 12
        case .stock: 13
        case .finish: 14
        case .limit: 15
        }
    }
}

/// Where in its lifecycle an activity's push is: the `aps.event` value.
public enum LifecyclePhase: String, Sendable, CaseIterable {
    /// `event: start`, to a push-to-start token.
    case start
    /// `event: update`, to the activity's update token.
    case update
    /// `event: end`, to the activity's update token.
    case end
}

/// Up to four numbers of an activity's `content-state`; each kind names them
/// (`ActivityKind.stateFields`). Fixed-size so an event is a plain value and streaming
/// allocates nothing.
public struct ContentState: Sendable, Equatable {
    /// The values, in the order of the kind's `stateFields`; unused slots are 0.
    public var values: (Int32, Int32, Int32, Int32)

    /// Creates a state from up to four values.
    public init(_ a: Int32 = 0, _ b: Int32 = 0, _ c: Int32 = 0, _ d: Int32 = 0) {
        values = (a, b, c, d)
    }

    /// Value `index`, 0 to 3.
    public subscript(index: Int) -> Int32 {
        switch index {
        case 0: values.0
        case 1: values.1
        case 2: values.2
        default: values.3
        }
    }

    public static func == (lhs: ContentState, rhs: ContentState) -> Bool {
        lhs.values == rhs.values
    }
}

/// One step of a group's timeline: what happens, when (from the timeline's origin), and the
/// state it leaves the activity in.
public struct TimelineStep: Sendable, Equatable {
    /// Milliseconds after the group's timeline begins.
    public var offsetMs: Int64
    /// What happened.
    public var kind: EventKind
    /// Whether this step updates or ends the activity.
    public var phase: LifecyclePhase
    /// The content-state after the step.
    public var state: ContentState
    /// Whether the push carries an alert (it lights up the screen).
    public var alert: Bool
}
