import Foundation
import Wire
import Workload

/// One figure `pushbench hotpath` measures: what runs, under which name, against which peer.
public struct HotPathMeasurement: Sendable {
    /// The figure's stem; the reported columns are `<name>_per_s` and, with `reportsBytes`,
    /// `<name>_mb_per_s`.
    public let name: String
    /// What the figure means, for `--help` and the report.
    public let summary: String
    /// Whether megabytes per second mean something for this figure (encoders).
    public let reportsBytes: Bool
    /// The stem of the figure this one is compared with, if any.
    public let peer: String?
    /// Builds one thread's operation.
    public let makeOperation: @Sendable () throws -> ThroughputProbe.Operation

    /// The names of every measurement, for validating a selection without building them.
    public static var names: [String] {
        ["es256_sign", "provider_token_sign", "bearer_cached", "device_token"]
            + SamplePayload.allCases.flatMap { ["encode_\($0.rawValue)", "jsonencoder_\($0.rawValue)"] }
    }

    /// Every measurement, ours and Foundation's, in report order.
    public static func all(key: ES256PrivateKey) -> [HotPathMeasurement] {
        signing(key: key) + [deviceTokens()] + SamplePayload.allCases.flatMap(encoding)
    }

    /// A provider token's header and claims, base64url: what an ES256 signature signs.
    private static let signingInput = Array(
        #"eyJhbGciOiJFUzI1NiIsImtpZCI6IlBCS0VZMDAwMDEifQ.eyJpc3MiOiJQQlRFQU0wMDAxIiwiaWF0IjoxfQ"#.utf8
    )

    /// ES256 signatures, whole provider tokens signed, and cached bearer lookups.
    private static func signing(key: ES256PrivateKey) -> [HotPathMeasurement] {
        let keyID = "PBKEY00001"
        let teamID = "PBTEAM0001"
        let cache = ProviderTokenCache(key: key, keyID: keyID, teamID: teamID)
        let signingInput = Self.signingInput
        return [
            HotPathMeasurement(
                name: "es256_sign",
                summary: "ES256 signatures (SHA-256 and ECDSA P-256, raw r||s) with a per-thread signer",
                reportsBytes: false,
                peer: "openssl_sign"
            ) {
                let signer = try ES256Signer(key: key)
                return { iterations in
                    var bytes = 0
                    for _ in 0..<iterations { bytes &+= try signer.sign(signingInput).count }
                    return bytes
                }
            },
            HotPathMeasurement(
                name: "provider_token_sign",
                summary: "whole provider tokens signed (header, claims, base64url, signature): the per-request bug",
                reportsBytes: false,
                peer: nil
            ) {
                let signer = try ES256Signer(key: key)
                return { iterations in
                    var bytes = 0
                    for _ in 0..<iterations {
                        bytes &+= try ProviderToken.sign(
                            keyID: keyID,
                            teamID: teamID,
                            issuedAt: 1_790_000_000,
                            with: signer
                        )
                        .jwt.utf8.count
                    }
                    return bytes
                }
            },
            HotPathMeasurement(
                name: "bearer_cached",
                summary: "cached bearer lookups through a per-thread ProviderTokenCache.Reader",
                reportsBytes: false,
                peer: nil
            ) {
                var reader = ProviderTokenCache.Reader(cache)
                let now = Int64(Date().timeIntervalSince1970)
                return { iterations in
                    // A sender's reader is a local with no runtime exclusivity checks; copying the
                    // captured one pays for its check once per batch instead of once per lookup.
                    var local = reader
                    defer { reader = local }
                    var bytes = 0
                    for _ in 0..<iterations { bytes &+= try local.token(now: now).authorization.utf8.count }
                    return bytes
                }
            },
        ]
    }

    /// Synthetic device tokens written into a reused buffer.
    private static func deviceTokens() -> HotPathMeasurement {
        HotPathMeasurement(
            name: "device_token",
            summary: "synthetic 64-hex device tokens written from (seed, index) into a reused buffer",
            reportsBytes: false,
            peer: nil
        ) {
            let tokens = TokenSet(seed: 1, count: 10_000_000)
            var index = 0
            var buffer = [UInt8](repeating: 0, count: tokens.hexLength)
            return { iterations in
                // A local index: the captured one lives in a heap box the token writes
                // might alias, which would cost a load and a store per token.
                var next = index
                defer { index = next }
                return buffer.withUnsafeMutableBytes { destination in
                    for _ in 0..<iterations {
                        tokens.writeHex(at: next, to: destination.baseAddress!)
                        next = next == 9_999_999 ? 0 : next + 1
                    }
                    return iterations * destination.count
                }
            }
        }
    }

    /// One sample payload encoded by `PayloadEncoder`, and by Foundation's `JSONEncoder`.
    private static func encoding(_ sample: SamplePayload) -> [HotPathMeasurement] {
        let payload = sample.payload
        return [
            HotPathMeasurement(
                name: "encode_\(sample.rawValue)",
                summary: "\(sample.rawValue) payloads encoded by PayloadEncoder into its reused buffer",
                reportsBytes: true,
                peer: "jsonencoder_\(sample.rawValue)"
            ) {
                var encoder = PayloadEncoder()
                return { iterations in
                    var bytes = 0
                    for _ in 0..<iterations {
                        try encoder.encode(payload)
                        bytes &+= encoder.bytes.count
                    }
                    return bytes
                }
            },
            HotPathMeasurement(
                name: "jsonencoder_\(sample.rawValue)",
                summary: "the same \(sample.rawValue) payloads encoded by Foundation's JSONEncoder",
                reportsBytes: true,
                peer: nil
            ) {
                let encoder = JSONEncoder()
                return { iterations in
                    var bytes = 0
                    for _ in 0..<iterations { bytes &+= try encoder.encode(payload).count }
                    return bytes
                }
            },
        ]
    }
}
