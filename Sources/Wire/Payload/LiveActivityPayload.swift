/// The `aps` dictionary of a Live Activity push (ActivityKit push notifications).
///
/// Field names and meanings follow Apple's "Starting and updating Live Activities with
/// ActivityKit push notifications"; see `docs/apns.md` §3.2.
public struct LiveActivityPayload: Sendable, Equatable {
    /// The ActivityKit event a push carries.
    public enum Event: String, Sendable {
        case start
        case update
        case end
    }

    /// A visible alert; required for `start`, optional otherwise.
    public struct Alert: Sendable, Equatable, Encodable {
        /// Alert title.
        public var title: String
        /// Alert body.
        public var body: String
        /// Sound name, or `nil` for silence.
        public var sound: String?

        /// Creates an alert.
        public init(title: String, body: String, sound: String? = nil) {
            self.title = title
            self.body = body
            self.sound = sound
        }
    }

    /// `start`, `update` or `end`.
    public var event: Event
    /// UNIX seconds; the device shows the newest and drops older ones.
    public var timestamp: Int64
    /// Must decode as the app's `ActivityAttributes.ContentState`.
    public var contentState: JSONValue
    /// UNIX seconds after which the activity is shown as stale.
    public var staleDate: Int64?
    /// UNIX seconds at which an ended activity leaves the Lock Screen (only with `end`).
    public var dismissalDate: Int64?
    /// Orders concurrent activities; the highest gets the Dynamic Island.
    public var relevanceScore: Double?
    /// An alert that lights up the device.
    public var alert: Alert?
    /// `start` only: the name of the app's `ActivityAttributes` type (required for `start`).
    public var attributesType: String?
    /// `start` only: the activity's static attributes (required for `start`).
    public var attributes: JSONValue?
    /// `start` only (iOS 18): ask the device to mint a per-activity update token, sent as
    /// `"input-push-token": 1`.
    public var inputPushToken: Bool
    /// `start` only (iOS 18): the broadcast channel (base64, as APNs issued it) the started
    /// activity subscribes to, sent as `"input-push-channel"`.
    public var inputPushChannel: String?

    /// Creates a payload.
    public init(
        event: Event,
        timestamp: Int64,
        contentState: JSONValue,
        staleDate: Int64? = nil,
        dismissalDate: Int64? = nil,
        relevanceScore: Double? = nil,
        alert: Alert? = nil,
        attributesType: String? = nil,
        attributes: JSONValue? = nil,
        inputPushToken: Bool = false,
        inputPushChannel: String? = nil
    ) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.alert = alert
        self.attributesType = attributesType
        self.attributes = attributes
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
    }

    /// Clears every member a push may leave out, keeping `event`, `timestamp` and
    /// `contentState`: a sender that reuses one payload for every push starts each from this,
    /// rather than building and destroying a payload a push. Beside the members, so that a new
    /// one is cleared too.
    public mutating func clearOptionalMembers() {
        staleDate = nil
        dismissalDate = nil
        relevanceScore = nil
        alert = nil
        attributesType = nil
        attributes = nil
        inputPushToken = false
        inputPushChannel = nil
    }
}
