/// A value PushBench fills into an API request file's templates, written `{{name}}`.
///
/// A placeholder that is a whole YAML scalar becomes the JSON value of its type (a number, an
/// object for `content_state`, `null` where it has no value); one inside longer text becomes its
/// text. Which ones a request may use depends on what it stands for: a registration knows its
/// activity and tokens, an event its kind and state. docs/profile-api.md lists them.
public enum Placeholder: String, Sendable, CaseIterable {
    /// The activity's id (0 to activities − 1).
    case activity
    /// The activity's device and its user: what a device-side request names itself by.
    case device
    case user
    /// Its fan-out group's id: the activities that follow the same match or sale.
    case group
    /// The activity's update token (hex), and its device's push-to-start token.
    case updateToken = "update_token"
    case pushToStartToken = "push_to_start_token"
    /// The update token a rotation replaced, in the rotated token's report.
    case oldUpdateToken = "old_update_token"
    /// A start's `attributes-type` and its `attributes` object.
    case attributesType = "attributes_type"
    case attributes
    /// The scenario's name for what happened (`goal`, `minute`, `full-time`).
    case event
    /// `update` or `end`, renamed by the event's `actions` map (Netmera's `UPDATE` and `END`).
    case action
    /// The `content-state` object, with PushBench's `pushbench_event` member for matching.
    case contentState = "content_state"
    /// `apns-priority`: 10, 5 or 1.
    case priority
    /// UNIX seconds: the event's time, its `stale-date` (updates), its `dismissal-date` (ends).
    case timestamp
    case staleDate = "stale_date"
    case dismissalDate = "dismissal_date"
    /// The moment the request is sent.
    case now
    /// The activity's start and end on the scenario's clock: when a service that ends its
    /// activities on its own (a countdown's target) is to end it.
    case activityStart = "activity_start"
    case activityEnd = "activity_end"
    /// The start push this device accepted: its members, `{{start.attributes.NAME}}`,
    /// `{{start.content_state.NAME}}` and `{{start.aps.NAME}}`, in a device's reports.
    case startPush = "start"

    /// Whether it is a time, which takes an offset and a format (`{{activity_end+10s|iso8601}}`).
    var isTime: Bool {
        switch self {
        case .timestamp, .staleDate, .dismissalDate, .now, .activityStart, .activityEnd: true
        default: false
        }
    }

    /// The times of the activity a request names.
    static let activityTimes: Set<Placeholder> = [.activityStart, .activityEnd]

    /// The placeholders a registration can fill: one activity, before any event.
    static let registration: Set<Placeholder> = [.activity, .group, .updateToken, .pushToStartToken, .now]

    /// A device reporting its push-to-start token, before the clock: it has no activity yet.
    static let startTokenReport: Set<Placeholder> = [.device, .user, .group, .pushToStartToken, .now]

    /// A device reporting an update token (after a start, or a rotation), or a close.
    static let deviceReport: Set<Placeholder> = [
        .device, .user, .activity, .group, .updateToken, .oldUpdateToken, .pushToStartToken, .now,
        .activityStart, .activityEnd, .startPush,
    ]

    /// The operator's start, per group (the group's push-to-start tokens are the service's to
    /// find) or per activity (its device's push-to-start token given).
    static func start(perActivity: Bool) -> Set<Placeholder> {
        var names: Set<Placeholder> = [
            .group, .event, .contentState, .attributesType, .attributes, .timestamp, .staleDate, .now,
        ]
        if perActivity { names.formUnion(activityTimes.union([.activity, .device, .user, .pushToStartToken])) }
        return names
    }

    /// The placeholders an event request can fill, sent once per group or once per activity.
    static func event(perActivity: Bool) -> Set<Placeholder> {
        var names: Set<Placeholder> = [
            .group, .event, .action, .contentState, .priority, .timestamp, .staleDate, .dismissalDate, .now,
        ]
        if perActivity { names.formUnion(activityTimes.union([.activity, .updateToken, .pushToStartToken])) }
        return names
    }
}

/// A placeholder's value for one request.
package enum PlaceholderValue: Sendable {
    case integer(Int64)
    case text(String)
    /// JSON written as is (the content state).
    case json([UInt8])
    /// A time, UNIX seconds: written as its placeholder's `TimeShape` says.
    case time(Double)
    /// No value for this request (an update's dismissal date).
    case none
}
