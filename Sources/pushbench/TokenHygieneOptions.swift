import ArgumentParser
import Workload

/// The token-hygiene knobs of a mock: the same on `pushbench mock` and on `run`'s embedded mock.
struct TokenHygieneOptions: ParsableArguments {
    @Option(help: "Share of device tokens answered 410 Unregistered (0 to 1).")
    var unregistered = 0.0

    @Option(help: "Share of device tokens that expire during the run, then get 410 ExpiredToken (0 to 1).")
    var expiring = 0.0

    @Option(name: .customLong("other-topic"), help: "Share of device tokens answered 400 DeviceTokenNotForTopic.")
    var otherTopic = 0.0

    @Option(
        name: .customLong("expiry-window"),
        help: "How long after the mock starts the --expiring tokens die, spread evenly over it."
    )
    var expiryWindow = TimeSpan(seconds: 60)

    /// Whether any knob was set.
    var isSet: Bool { unregistered != 0 || expiring != 0 || otherTopic != 0 }

    func validate() throws {
        _ = try hygiene()
    }

    /// The profile, or a usage error that names the rule broken.
    func hygiene() throws -> TokenHygiene {
        do {
            return try TokenHygiene(
                unregisteredFraction: unregistered,
                expiringFraction: expiring,
                otherTopicFraction: otherTopic,
                expiryWindowSeconds: Int64(expiryWindow.seconds.rounded(.up))
            )
        } catch {
            throw ValidationError("token hygiene: \(error)")
        }
    }
}
