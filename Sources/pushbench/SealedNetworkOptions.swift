import ArgumentParser
import Profiling
import SealedNetwork

/// `profile --as-apple`: the sender runs in a network of its own where Apple's APNs names are
/// the mock, so a sender that hard-codes them is profiled unmodified and cannot reach Apple.
struct SealedNetworkOptions: ParsableArguments {
    @Flag(
        name: .customLong("as-apple"),
        help: ArgumentHelp(
            "Run COMMAND in a sealed network where api.push.apple.com, api.sandbox.push.apple.com, api.development.push.apple.com (443, 2197) and the broadcast management hosts (2195, 2196) are the mock, trusted through SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, NODE_EXTRA_CA_CERTS and the system bundle; nothing else is reachable from inside.",
            discussion: "As root, or with user namespaces (docs/as-apple.md)."
        )
    )
    var asApple = false

    @Option(
        name: .customLong("reach"),
        help: ArgumentHelp(
            "An address outside the sealed network COMMAND may still reach, such as its database (repeatable).",
            valueName: "host:port"
        )
    )
    var reach: [String] = []

    @Option(
        name: .customLong("host"),
        help: ArgumentHelp(
            "A name inside the sealed network for a stub COMMAND starts there, such as the upstream API a service hard-codes (repeatable).",
            valueName: "name=address"
        )
    )
    var hosts: [String] = []

    func validate() throws {
        if !reach.isEmpty && !asApple { throw ValidationError("--reach is for --as-apple's sealed network") }
        if !hosts.isEmpty && !asApple { throw ValidationError("--host is for --as-apple's sealed network") }
        for address in reach {
            do { _ = try ReachAddress(address) } catch { throw ValidationError("\(error)") }
        }
        for host in hosts {
            do { _ = try StubHost(host) } catch { throw ValidationError("\(error)") }
        }
    }

    /// The sealed network asked for, or `nil`.
    func sealing() throws -> SenderProfiler.Sealing? {
        guard asApple else { return nil }
        return SenderProfiler.Sealing(
            reach: try reach.map { try ReachAddress($0) },
            stubs: try hosts.map { try StubHost($0) }
        )
    }
}
