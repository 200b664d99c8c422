import Foundation

/// The JSON body of an APNs error response: `{"reason": "...", "timestamp": ms}`.
///
/// Only rejected pushes carry a body, so Foundation's parser is fine here; the success path
/// never reaches it.
public struct APNsErrorBody: Sendable, Equatable {
    /// The reason string (see `APNsReason`; unknown strings are kept as sent).
    public let reason: String
    /// For 410: when APNs learned the token was invalid, milliseconds since the epoch.
    public let timestampMs: Int64?

    /// Parses `bytes`; `nil` when they are not an APNs error body.
    public init?(bytes: [UInt8]) {
        guard !bytes.isEmpty,
            let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
            let reason = object["reason"] as? String
        else { return nil }
        self.reason = reason
        self.timestampMs = (object["timestamp"] as? NSNumber)?.int64Value
    }
}
