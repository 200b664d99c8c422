/// Encodes the payload as `{"aps":{...}}` with the same keys and order as `PayloadEncoder`, so
/// Foundation's `JSONEncoder` can be the reference in tests and the peer in `pushbench hotpath`.
extension LiveActivityPayload: Encodable {
    private enum EnvelopeKeys: String, CodingKey {
        case aps
    }

    private enum Keys: String, CodingKey {
        case timestamp, event
        case contentState = "content-state"
        case staleDate = "stale-date"
        case dismissalDate = "dismissal-date"
        case relevanceScore = "relevance-score"
        case attributesType = "attributes-type"
        case attributes
        case inputPushToken = "input-push-token"
        case inputPushChannel = "input-push-channel"
        case alert
    }

    public func encode(to encoder: Encoder) throws {
        var envelope = encoder.container(keyedBy: EnvelopeKeys.self)
        var aps = envelope.nestedContainer(keyedBy: Keys.self, forKey: .aps)
        try aps.encode(timestamp, forKey: .timestamp)
        try aps.encode(event.rawValue, forKey: .event)
        try aps.encode(contentState, forKey: .contentState)
        try aps.encodeIfPresent(staleDate, forKey: .staleDate)
        try aps.encodeIfPresent(dismissalDate, forKey: .dismissalDate)
        try aps.encodeIfPresent(relevanceScore, forKey: .relevanceScore)
        try aps.encodeIfPresent(attributesType, forKey: .attributesType)
        try aps.encodeIfPresent(attributes, forKey: .attributes)
        if inputPushToken { try aps.encode(1, forKey: .inputPushToken) }
        try aps.encodeIfPresent(inputPushChannel, forKey: .inputPushChannel)
        try aps.encodeIfPresent(alert, forKey: .alert)
    }
}
