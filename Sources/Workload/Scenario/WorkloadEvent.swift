/// One push a scenario asks for: to whom, when, what, and how urgently.
///
/// A plain value of about 100 bytes; the stream produces millions per second without allocating.
/// `LoadEngine` turns it into a request (path from the token, payload from kind and state).
public struct WorkloadEvent: Sendable, Equatable {
    /// Simulated milliseconds from the scenario's start.
    public var timeMs: Int64
    /// The activity's id, `0..<scenario.activities`.
    public var activity: Int
    /// The fan-out group's id across the whole scenario.
    public var group: Int
    /// Which cohort of the scenario the activity belongs to.
    public var cohort: Int
    /// The activity's kind.
    public var activityKind: ActivityKind
    /// What happened.
    public var kind: EventKind
    /// `aps.event`: start, update or end.
    public var phase: LifecyclePhase
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int
    /// Which population the token comes from: push-to-start for starts, activity update
    /// tokens otherwise.
    public var tokenKind: TokenKind
    /// The token's index in its population. Update tokens are `2·activity + generation`,
    /// generation 1 after the activity's token rotated.
    public var tokenIndex: Int
    /// The `content-state` values, named by `activityKind.stateFields`.
    public var state: ContentState
    /// Whether the push carries an alert.
    public var alert: Bool
    /// Whether a start asks for a per-activity update token (`input-push-token: 1`).
    public var inputPushToken: Bool
    /// `.broadcast` for a push to the group's channel (an update or end), and for a start that
    /// subscribes its activity to that channel; `.token` otherwise.
    public var delivery: Scenario.Delivery
    /// The activities the push reaches: its own, or for a broadcast every subscriber of the
    /// group among the stream's activities (`activity` is the first of them).
    public var subscribers: Range<Int>
    /// Whether this stream's sender sends the push. Always, but for a broadcast to a group split
    /// between streams (workers, shards): the stream holding the group's first activity sends it
    /// once, and the others hold the event only for their subscribers' devices.
    public var sentHere: Bool

    /// Whether it is a broadcast to its group's channel, not a push to one token.
    public var isBroadcast: Bool { tokenKind == .channel }
    /// The activities a broadcast reaches; `nil` for a push to one token.
    public var broadcastSubscribers: Range<Int>? { isBroadcast ? subscribers : nil }
}
