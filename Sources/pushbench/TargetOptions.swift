import ArgumentParser
import Workload

/// Where a run sends and what it trusts there: the embedded mock, an endpoint or Apple's
/// servers, the certificate to trust, your devices' tokens toward Apple, and where broadcast
/// channels are managed.
struct TargetOptions: ParsableArguments {

    @Option(
        help: ArgumentHelp(
            "production, sandbox, or https://host:port (e.g. a `pushbench mock`) (default: an embedded mock).",
            discussion:
                "Toward Apple's servers a run needs --tokens, --auth-key, --bundle-id, and keeps to 50 pushes/s."
        )
    )
    var endpoint: String?

    @Option(
        name: .customLong("tokens"),
        help: ArgumentHelp(
            "Your devices' activity tokens, one hex token per line, instead of synthetic ones.",
            discussion: """
                Activity i's pushes go to line i (modulo the count); the scenario's starts are not sent, since \
                your apps started those activities. Required toward production or sandbox.
                """
        )
    )
    var tokensFile: String?

    @Flag(
        name: .customLong("no-rate-cap"),
        help: "Allow more than 50 pushes/s toward Apple's servers (production, sandbox)."
    )
    var noRateCap = false

    @Option(
        name: .customLong("ca-file"),
        help: "PEM certificate(s) to trust for --endpoint instead of the system store."
    )
    var caFile: String?

    @Flag(help: "Do not verify the --endpoint certificate (test servers only).")
    var insecure = false

    @Option(
        help: "Channel management API for broadcasts to --endpoint https://host:port (the mock's --channel-port)."
    )
    var channelEndpoint: String?

    @Flag(
        help:
            "Allow broadcasts toward Apple: channels are then created (and deleted) on your app for real, up to Apple's 10,000."
    )
    var broadcastOnApple = false

    /// Where the run creates its broadcast channels: `nil` when it has none or the embedded mock
    /// serves them; Apple's api-manage-broadcast hosts only with --broadcast-on-apple.
    func channelManagementOrigin(for workload: Scenario, target: RunTarget) throws -> String? {
        guard workload.cohorts.contains(where: { $0.delivery == .broadcast }) else { return nil }
        switch target {
        case .embeddedMock:
            return nil
        case .endpoint(let origin, isApple: true):
            guard broadcastOnApple else {
                throw CommandLineError(
                    "\(workload.name) broadcasts, which creates real channels on your app at Apple; "
                        + "add --broadcast-on-apple to do so, or --delivery token"
                )
            }
            return origin == RunTarget.sandbox
                ? "https://api-manage-broadcast.sandbox.push.apple.com:2195"
                : "https://api-manage-broadcast.push.apple.com:2196"
        case .endpoint:
            guard let channelEndpoint else {
                throw CommandLineError(
                    "\(workload.name) broadcasts: give the channel management API with --channel-endpoint "
                        + "https://host:port (pushbench mock --channel-port), or --delivery token"
                )
            }
            guard case .endpoint(let origin, _) = try? RunTarget(parsing: channelEndpoint),
                channelEndpoint.hasPrefix("https://")
            else {
                throw CommandLineError("--channel-endpoint must be https://host[:port], not '\(channelEndpoint)'")
            }
            return origin
        }
    }

}
