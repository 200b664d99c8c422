import ArgumentParser
import Foundation

/// Where a run's pushes go (`--endpoint`), and the care Apple's own hosts need.
///
/// Apple's servers must never receive synthetic tokens, and a load test must not flood real
/// devices by accident: toward `production` or `sandbox` a run needs real tokens (`--tokens`),
/// a real key and bundle ID, verifies Apple's certificate against the system's trust store (no
/// `--insecure`, no `--ca-file`: a bearer token must never reach an impostor), and it is capped at
/// `appleRateCap` pushes per second unless told otherwise.
enum RunTarget: Equatable {
    /// The embedded mock on loopback.
    case embeddedMock
    /// Any HTTPS origin; `isApple` for APNs itself.
    case endpoint(origin: String, isApple: Bool)

    /// APNs' production host.
    static let production = "https://api.push.apple.com"
    /// APNs' development (sandbox) host.
    static let sandbox = "https://api.sandbox.push.apple.com"
    /// Pushes per second toward Apple's hosts unless `--no-rate-cap`.
    static let appleRateCap = 50.0

    /// Reads `--endpoint`: `production`, `sandbox`, `https://host[:port]`, or none.
    init(parsing endpoint: String?) throws {
        guard let endpoint else {
            self = .embeddedMock
            return
        }
        let origin =
            switch endpoint {
            case "production": Self.production
            case "sandbox": Self.sandbox
            default: endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
            }
        guard origin.hasPrefix("https://"), let url = URL(string: origin), let host = url.host, !host.isEmpty,
            url.path.isEmpty, url.query == nil
        else {
            throw ValidationError(
                "--endpoint must be production, sandbox or https://host[:port] (APNs speaks HTTP/2 over TLS only), "
                    + "not '\(endpoint)'"
            )
        }
        self = .endpoint(origin: origin, isApple: host.hasSuffix("push.apple.com"))
    }

    /// Whether the pushes go to Apple.
    var isApple: Bool {
        if case .endpoint(_, true) = self { return true }
        return false
    }

    /// The refusals toward Apple's hosts, each naming what to give instead.
    func checkAppleRules(
        tokensFile: String?,
        key: String?,
        bundleID: String,
        paced: (rate: Double?, otherwise: Bool),
        noRateCap: Bool,
        trust: (insecure: Bool, caFile: String?) = (false, nil)
    ) throws {
        guard isApple else { return }
        guard !trust.insecure, trust.caFile == nil else {
            throw ValidationError(
                "toward Apple's servers the certificate is always verified against the system's trust store: "
                    + "drop --insecure and --ca-file"
            )
        }
        guard tokensFile != nil else {
            throw ValidationError(
                "Apple's servers must not receive synthetic tokens: give --tokens FILE with your devices' tokens"
            )
        }
        guard key != nil else {
            throw ValidationError("Apple's servers need your .p8 key: give --auth-key, --key-id, --team-id")
        }
        guard bundleID != AppOptions.exampleBundleID else {
            throw ValidationError("give --bundle-id: the topic must be your app's")
        }
        guard !noRateCap else { return }
        if paced.otherwise || (paced.rate ?? 0) > Self.appleRateCap {
            throw ValidationError(
                "toward Apple's servers a run is capped at \(Int(Self.appleRateCap)) pushes/s (a --rate up to that, "
                    + "or none for exactly that); give --no-rate-cap to go faster"
            )
        }
    }
}
