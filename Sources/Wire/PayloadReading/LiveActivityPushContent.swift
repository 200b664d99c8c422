/// What a device reads of a Live Activity push before it shows anything: the event, and for a
/// start the attributes type and whether the attributes and content state decode.
///
/// `pushbench profile` plays the devices behind the mock: a start whose attributes type is not
/// the app's, or whose attributes or content state lack a member the app's types need, starts
/// nothing, while APNs answers 200. Read by walking the JSON once (`APSMembers`), so a device
/// event stays a few microseconds.
public struct LiveActivityPushContent: Sendable {
    /// `aps.event`, when it is a string.
    public let event: String?
    /// `aps.attributes-type`, when it is a string.
    public let attributesType: String?
    /// The names of `aps.attributes`'s and `aps.content-state`'s integer members; `nil` when the
    /// member is missing or not an object.
    public let attributeIntegers: [String]?
    public let contentStateIntegers: [String]?
    /// The names of their members that are not null, whatever their type: what a team's own
    /// app (`DeviceApp`) is checked against.
    public let attributeNames: [String]?
    public let contentStateNames: [String]?
    /// Whether `aps.alert` is present: a start must alert.
    public let hasAlert: Bool

    /// `nil` unless `json` is one JSON object whose `aps` is an object.
    public init?(json: [UInt8]) {
        guard let aps = APSMembers(json: json, readsObjects: true) else { return nil }
        event = aps.event
        attributesType = aps.attributesType
        attributeIntegers = aps.attributeIntegers
        contentStateIntegers = aps.contentStateIntegers
        attributeNames = aps.attributeNames
        contentStateNames = aps.contentStateNames
        hasAlert = aps.names.contains(.alert)
    }
}
