import LoadEngine
import MockAPNs
import MockFaults
import Transport
import Wire
import Workload

/// A mock APNs on a free loopback port that trusts one freshly generated signing key, or the
/// keys it is given.
final class MockFixture {
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"

    let signingKey: ES256PrivateKey
    let server: MockAPNsServer

    init(
        threads: Int = 1,
        environment: MockAPNsConfiguration.Environment = .production,
        tokenHygiene: TokenHygiene = .clean,
        faults: FaultPlan = .none,
        dropStreamsAfterRejection: Bool = false,
        adminPort: Int? = nil,
        strictLiveActivityContent: Bool = false,
        tokenRules: [TokenRule] = [],
        keys: [ProviderKey]? = nil,
        channelPort: Int? = nil,
        channelLimit: Int = 10_000,
        unregisteredTokens: Set<String> = [],
        disallowedTopics: Set<String> = [],
        recorder: PushRecorder? = nil
    ) throws {
        let signingKey = try ES256PrivateKey()
        self.signingKey = signingKey
        server = try MockAPNsServer.start(
            MockAPNsConfiguration(
                adminPort: adminPort,
                channelPort: channelPort,
                channelLimit: channelLimit,
                subscribersPerChannel: 250,
                keys: try keys ?? [
                    ProviderKey(
                        keyID: Self.keyID,
                        teamID: Self.teamID,
                        publicKey: ES256PublicKey(pem: signingKey.publicKeyPEM())
                    )
                ],
                dropStreamsAfterRejection: dropStreamsAfterRejection,
                environment: environment,
                tokenHygiene: tokenHygiene,
                tokenRules: tokenRules,
                unregisteredTokens: unregisteredTokens,
                disallowedTopics: disallowedTopics,
                threads: threads,
                recorder: recorder,
                faults: faults,
                strictLiveActivityContent: strictLiveActivityContent
            )
        )
    }

    deinit {
        server.shutdown()
    }

    var origin: String { "https://127.0.0.1:\(server.port)" }

    /// A token cache for the trusted key, or for `key` when given.
    func tokens(signingWith key: ES256PrivateKey? = nil) -> ProviderTokenCache {
        ProviderTokenCache(key: key ?? signingKey, keyID: Self.keyID, teamID: Self.teamID)
    }

    /// A load configuration aimed at this mock: the first `requests` pushes (all when `nil`) of
    /// `scenario` scaled to `activities`.
    func load(
        requests: Int?,
        activities: Int = 1000,
        scenario: String = "football",
        connections: Int = 4,
        streams: Int = 50,
        transport: TransportKind = .curl
    ) throws -> LoadConfiguration {
        LoadConfiguration(
            transport: .init(
                origin: origin,
                connections: connections,
                streamsPerConnection: streams,
                requestTimeout: .seconds(20),
                trustedCertificatesPEM: server.certificatePEM
            ),
            transportKind: transport,
            scenario: try Scenario.builtIn(named: scenario).scaled(toActivities: activities),
            requests: requests
        )
    }
}
