import Workload

extension LoadTest {
    /// The first `count` requests a run would send, as text (request line, headers, body), with
    /// the bearer token replaced by what it is: for checking a run toward a real target before it
    /// sends anything. Nothing is signed or sent.
    public static func preview(
        _ configuration: LoadConfiguration,
        keyID: String,
        teamID: String,
        count: Int
    ) throws
        -> [String]
    {
        var stream = try ScenarioStream(configuration.scenario)
        var source = ScenarioPushSource(
            scenario: configuration.scenario,
            realTokens: configuration.realTokens,
            bundleID: configuration.bundleID,
            channelIDs: configuration.channelIDs
        )
        let now = Int64(configuration.wallClock.now())
        var path: [UInt8] = []
        var requests: [String] = []
        while requests.count < count, let event = stream.next() {
            guard source.sends(event) else { continue }
            let body = try source.prepare(event, now: now, path: &path)
            let headers = HeaderSet.lines(
                configuration,
                authorization: "bearer <redacted: ES256 provider token, kid \(keyID), iss \(teamID)>",
                expiration: now + configuration.expirationSeconds,
                priority: configuration.priorityOverride ?? event.priority,
                broadcast: event
            )
            requests.append(
                (["POST \(configuration.transport.origin)\(String(decoding: path, as: UTF8.self))"] + headers
                    + [
                        "apns-id: <a new UUID per request>", "content-length: \(body.count)", "",
                        String(decoding: body, as: UTF8.self),
                    ])
                    .joined(separator: "\n")
            )
        }
        return requests
    }
}
