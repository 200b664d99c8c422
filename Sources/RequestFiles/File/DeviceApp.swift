/// The team's own app as its devices run it, when a lifecycle file names it (`app:`): the
/// `attributes-type` its start pushes must carry, and the members its attributes and content
/// state need to decode. Without it, the devices run PushBench's app: each activity kind's
/// built-in type (`MatchAttributes`, ...) and fields.
///
/// A real service starts its own app's activities (`TigerDuckActivityAttributes`, say): played
/// as PushBench's app, every such start would be dropped as `wrong_attributes_type` and the
/// service blamed for it.
public struct DeviceApp: Sendable, Equatable {
    /// The `attributes-type` a start must name.
    public var attributesType: String
    /// Members `aps.attributes` and `aps.content-state` must have (any value but null).
    public var attributes: [String]
    public var contentState: [String]

    /// Creates the description.
    public init(attributesType: String, attributes: [String], contentState: [String]) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
    }
}
