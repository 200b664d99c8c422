import Wire

/// A device-token prefix whose pushes get one answer, as go-apnsmock's token rules do: a team
/// testing its error handling sends to `410…` tokens and gets `Unregistered`, to `500…` tokens
/// and gets `InternalServerError`, without a fault rate or a hygiene profile to set up.
public struct TokenRule: Sendable, Equatable {
    /// The lowercase hex digits a token starts with.
    public var prefix: String
    /// The answer its pushes get once every other check passed.
    public var reason: APNsReason

    /// The reasons a rule may give: those about the device token or the service, which a valid
    /// push can meet.
    public static let reasons: [APNsReason] = [
        .badDeviceToken, .deviceTokenNotForTopic, .topicDisallowed, .unregistered, .expiredToken,
        .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    /// Creates a rule.
    public init(prefix: String, reason: APNsReason) {
        self.prefix = prefix
        self.reason = reason
    }

    /// Parses `PREFIX=REASON`, such as `410=Unregistered`.
    /// - Throws: `MockFaultError` naming what a rule may hold.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "=", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy({ "0123456789abcdef".contains($0) }),
            let reason = APNsReason(rawValue: parts[1]), Self.reasons.contains(reason)
        else {
            throw MockFaultError(
                "token rule '\(text)': expected PREFIX=REASON with PREFIX lowercase hex digits and REASON one of "
                    + Self.reasons.map(\.rawValue).joined(separator: ", ")
            )
        }
        self.init(prefix: parts[0], reason: reason)
    }
}
