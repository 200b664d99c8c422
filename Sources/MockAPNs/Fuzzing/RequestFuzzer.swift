import MockFaults
import Wire

/// Arbitrary bytes made into a request and put through every check the mock makes on one:
/// path parsing, header validation, provider-token (JWT) parsing and verification, the Live
/// Activity payload scan, broadcasts and channel management. The libFuzzer target in `Fuzz/`
/// calls it with each input it makes up, and `FuzzRegressionTests` replays what it found, so a
/// crash found once stays fixed.
///
/// An input reads like an HTTP/1 request, so seeds are written by hand and mutations stay close
/// to real requests:
///
///     <listener byte: even for the push port, odd for channel management>
///     METHOD PATH\n
///     name: value\n            (any number of headers)
///     \n
///     body
///
/// The bearer `VALID` stands for a token freshly signed with the fuzzer's key, so that mutations
/// of everything else get past the token check and reach the checks behind it.
public final class RequestFuzzer {
    private let validator: PushRequestValidator
    private let validBearer: String

    /// The fixed "now" of every check, UNIX seconds, so a run is reproducible.
    static let now: Int64 = 1_750_000_000

    /// Creates a fuzzer with a fresh key, token rules, an unregistered token and strict Live
    /// Activity content, so that every branch of the checks can be reached.
    public init() throws {
        let key = try ES256PrivateKey()
        let keyID = "FUZZKEY001"
        let teamID = "FUZZTEAM01"
        let verifier = ProviderTokenVerifier(keys: [
            ProviderKey(keyID: keyID, teamID: teamID, publicKey: try ES256PublicKey(pem: key.publicKeyPEM()))
        ])
        validBearer = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: Self.now, with: key).authorization
        validator = PushRequestValidator(
            verifier: verifier,
            startedAt: Self.now - 60,
            tokenRules: [try TokenRule(parsing: "dead=Unregistered"), try TokenRule(parsing: "beef=BadDeviceToken")],
            unregisteredTokens: [String(repeating: "ab", count: 32)],
            disallowedTopics: ["com.example.disallowed"]
        )
    }

    /// Reads `bytes` as a request and answers it on the listener its first byte names, as a
    /// new connection to a new mock would: nothing carries over from one input to the next, so
    /// a crash reproduces from its input alone.
    /// - Returns: the answer's HTTP status, or 0 for an empty input.
    @discardableResult
    public func exercise(_ bytes: [UInt8]) -> Int {
        guard let first = bytes.first else { return 0 }
        let push = request(from: bytes.dropFirst())
        _ = LiveActivityContent.problem(in: push.body)
        let responder = PushResponder(
            validator: validator,
            stats: MockStats(),
            clock: { RequestFuzzer.now },
            environment: .development,
            recorder: nil,
            faults: nil,
            strictLiveActivityContent: true,
            channels: ChannelStore(limit: 4, subscribersPerChannel: 3)
        )
        let listener: ConnectionState.Listener = first & 1 == 0 ? .apns : .channels
        return responder.answer(push, on: ConnectionState(listener: listener, streamsAfterToken: 1000, raised: true))
            .status
    }

    /// The request `text` describes (see the type's documentation).
    func request(from text: ArraySlice<UInt8>) -> InboundPush {
        let newline = UInt8(ascii: "\n")
        var lines = text.split(separator: newline, maxSplits: .max, omittingEmptySubsequences: false)[...]
        let requestLine = lines.popFirst().map { String(decoding: $0, as: UTF8.self) } ?? ""
        let space = requestLine.firstIndex(of: " ") ?? requestLine.endIndex
        var push = InboundPush(
            method: String(requestLine[..<space]),
            path: space < requestLine.endIndex ? String(requestLine[requestLine.index(after: space)...]) : ""
        )
        while let line = lines.popFirst(), !line.isEmpty {
            let header = String(decoding: line, as: UTF8.self)
            guard let colon = header.firstIndex(of: ":") else { continue }
            var value = header[header.index(after: colon)...].drop { $0 == " " }
            if value == "bearer VALID" { value = Substring(validBearer) }
            push.add(name: String(header[..<colon]), value: String(value))
        }
        push.body = Array(lines.joined(separator: [newline]).prefix(ConnectionLimits.keptBodyBytes))
        push.bodyLength = lines.isEmpty ? 0 : lines.map(\.count).reduce(lines.count - 1, +)
        return push
    }
}
