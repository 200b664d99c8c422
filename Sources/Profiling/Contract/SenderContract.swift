import Foundation

/// What a profiled sender is handed: the mock to send to and how to trust it, the key to sign
/// with, and its work, as files in the run's folder and `PUSHBENCH_*` variables naming them. A
/// sender service (`profile --api`) takes its work through its API instead: it is handed no
/// events, and a port to listen on.
///
/// The names are a public interface (docs/profile.md); they do not change.
public struct SenderContract: Sendable {
    /// The mock's host name (127.0.0.1, or Apple's own in a sealed network) and port.
    public var host = "127.0.0.1"
    public var port: Int
    /// The mock's certificate (PEM), the provider key (`.p8`), the tokens and the events.
    public var caFile: String
    public var authKey: String
    /// The tokens and the events; `nil` for a service.
    public var tokensFile: String?
    public var eventsFile: String?
    /// The key's `kid` and `iss`.
    public var keyID: String
    public var teamID: String
    /// The app whose activities are updated.
    public var bundleID: String
    /// UNIX seconds of `at_s` 0; `nil` for a service, whose clock starts once it is registered.
    public var startAt: Double?
    /// The port a service listens on for its API; `nil` for a sender.
    public var servicePort: Int?
    /// Variables that make the sender's stack trust the mock (`SealedNetwork.trustEnvironment`).
    public var trust: [String: String] = [:]

    /// The variables, added to the environment the sender inherits.
    public var environment: [String: String] {
        var variables = [
            "PUSHBENCH_APNS_URL": "https://\(host):\(port)",
            "PUSHBENCH_APNS_HOST": host,
            "PUSHBENCH_APNS_PORT": String(port),
            "PUSHBENCH_CA_FILE": caFile,
            "PUSHBENCH_AUTH_KEY": authKey,
            "PUSHBENCH_KEY_ID": keyID,
            "PUSHBENCH_TEAM_ID": teamID,
            "PUSHBENCH_BUNDLE_ID": bundleID,
            "PUSHBENCH_TOPIC": "\(bundleID).push-type.liveactivity",
        ]
        variables.merge(trust) { _, trust in trust }
        variables["PUSHBENCH_TOKENS"] = tokensFile
        variables["PUSHBENCH_EVENTS"] = eventsFile
        variables["PUSHBENCH_START_AT"] = startAt.map { String(format: "%.3f", $0) }
        variables["PUSHBENCH_SERVICE_PORT"] = servicePort.map(String.init)
        // The key's content too, for senders configured with it rather than with a path: as it
        // is (PEM), and base64-encoded. Only in the sender's environment, never written out.
        if let pem = FileManager.default.contents(atPath: authKey) {
            variables["PUSHBENCH_AUTH_KEY_PEM"] = String(decoding: pem, as: UTF8.self)
            variables["PUSHBENCH_AUTH_KEY_BASE64"] = pem.base64EncodedString()
        }
        return variables
    }

    /// The sender's whole environment: this process's, with the contract's variables over it.
    public var inheritedEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.merging(environment) { _, contract in contract }
    }
}
