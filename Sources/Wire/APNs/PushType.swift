/// Values of the `apns-push-type` header, each with the topic suffix APNs requires for it.
///
/// Source: `docs/apns.md` §1.3 (Apple's type descriptions as the libraries
/// that agree on them quote them).
public enum PushType: String, Sendable, CaseIterable {
    case alert
    case background
    case location
    case voip
    case complication
    case fileprovider
    case mdm
    case liveactivity
    case pushtotalk
    case widgets
    case controls

    /// What `apns-topic` must append to the bundle ID for this push type (empty for none).
    /// `mdm` topics come from a certificate and are not checked against a bundle.
    public var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: ""
        case .location: ".location-query"
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// The payload size limit for this push type, in bytes.
    public var payloadLimit: Int {
        self == .voip ? PayloadEncoder.largeLimit : PayloadEncoder.deviceLimit
    }

    /// The `apns-topic` for `bundleID` under this push type.
    public func topic(forBundleID bundleID: String) -> String {
        bundleID + topicSuffix
    }

    /// The app `topic` names under this push type: the topic without its suffix, or the whole
    /// topic when it lacks the suffix.
    public func bundleID(ofTopic topic: String) -> Substring {
        topic.hasSuffix(topicSuffix) ? topic.dropLast(topicSuffix.count) : Substring(topic)
    }
}
