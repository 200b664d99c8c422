import Basics
import Transport
import Wire
import Workload

/// The sender's per-push work, one push at a time, each stage in a function of its own, for
/// counting instructions under Valgrind (`pushbench hotpath --instructions`).
///
/// The stages call the code a worker calls (`RunEvents`, `ScenarioPushSource`, `HeaderSet`,
/// `ProviderTokenCache`, `ES256Signer`, `NGHTTP2PushClient`, `RunMetrics`), so a change that
/// makes a push dearer shows here. Pushes go through the real nghttp2 and libssl code to an
/// `InMemoryAPNsPeer` over a BIO pair: no socket, no kernel, nothing timing-dependent, so two
/// runs execute the same instructions however busy the machine is. The peer's own work happens
/// between stages and is counted in none of them.
///
/// Counting relies on names: `runCountedPushes` is the only function collected in, and each
/// function it calls is a stage (`PushStage.functionName`) or the peer. Keep closures out of
/// `runCountedPushes`, or their names would match too.
public struct PushStageWorkload {
    /// The scenario the pushes come from: a football final of 200 activities, whose stream
    /// starts every activity and then sends the match's updates.
    public static let scenarioName = "football"
    public static let activities = 200
    private static let keyID = "PBKEY00001"
    private static let teamID = "PBTEAM0001"

    private var events: RunEvents
    private var source: ScenarioPushSource
    private var headers: HeaderSet
    private var reader: ProviderTokenCache.Reader
    private let signer: ES256Signer
    private let client: NGHTTP2PushClient
    private var metrics: RunMetrics
    /// The instant the books see, nanoseconds: a push every 10 µs answered 5 µs later. Not the
    /// clock's: how often the run's timeline turns a second would depend on the machine's speed
    /// (and Valgrind's), and so would the instructions it takes.
    private var clock = monotonicNanos()
    private var idBits = SplitMix64(seed: 0x5EED)
    private let now: Int64
    private var event: WorkloadEvent?
    private var path: [UInt8] = []
    private var body: [UInt8] = []
    private var block: HeaderBlock?
    private var apnsID: (high: UInt64, low: UInt64) = (0, 0)
    /// Pushes answered, and those answered 200 with their own `apns-id`.
    public private(set) var answered = 0
    public private(set) var accepted = 0

    /// Sets up a worker's state and an in-memory connection (not yet opened).
    public init(now: Int64) throws {
        var scenario = try Scenario.builtIn(named: Self.scenarioName)
        scenario.cohorts[0].activities = Self.activities
        let configuration = LoadConfiguration(
            transport: TransportConfiguration(origin: "https://localhost"),
            scenario: scenario
        )
        events = try RunEvents(scenario, activities: 0..<Self.activities, pacing: .closedLoop)
        source = ScenarioPushSource(scenario: scenario)
        let key = try ES256PrivateKey()
        reader = ProviderTokenCache.Reader(ProviderTokenCache(key: key, keyID: Self.keyID, teamID: Self.teamID))
        signer = try ES256Signer(key: key)
        self.now = now
        headers = HeaderSet(configuration, bearer: try reader.token(now: now), expiration: now + 3600)
        client = try NGHTTP2PushClient.inMemory()
        metrics = RunMetrics(startNanos: clock, timeline: RunTimeline(workers: 1), worker: 0)
    }

    /// Runs `pushes` pushes that are not counted: the connection opens, and every lazy cost
    /// (symbol binding, first allocations, HPACK's table) is paid before counting starts.
    public mutating func warmUp(pushes: Int) throws {
        for _ in 0..<pushes { try push(signing: true) }
    }

    /// Runs `pushes` pushes, stage by stage: the function Valgrind collects in.
    @inline(never)
    public mutating func runCountedPushes(_ pushes: Int) throws {
        for _ in 0..<pushes {
            try countScenarioEvent()
            try countPayloadEncoding()
            try countHeadersAndBearer()
            try countSignature()
            try countFramingAndTLS()
            client.serveMemoryPeers()
            countResponseHandling()
        }
    }

    /// Runs `pushes` pushes as a worker sends them between token refreshes: every stage but
    /// the signature (the bearer comes from the cache), each answered before the next. For the
    /// allocation benchmark, which counts what one steady-state push allocates.
    public mutating func sendPushes(_ pushes: Int) throws {
        for _ in 0..<pushes { try push(signing: false) }
    }

    /// One push outside the count, through the same stages (the signature's only when
    /// `signing`). It calls them itself rather than through `runCountedPushes`, since Valgrind
    /// collects in every call of that function.
    private mutating func push(signing: Bool) throws {
        try countScenarioEvent()
        try countPayloadEncoding()
        try countHeadersAndBearer()
        if signing { try countSignature() }
        try countFramingAndTLS()
        // The handshake takes a few rounds: until the answer is in.
        let before = answered
        for _ in 0..<10 where answered == before {
            client.serveMemoryPeers()
            countResponseHandling()
        }
        guard answered > before else { throw WorkloadError("the in-memory peer did not answer a push") }
    }

    @inline(never)
    private mutating func countScenarioEvent() throws {
        event = events.next()
        guard event != nil else {
            throw WorkloadError("the \(Self.scenarioName) scenario of \(Self.activities) activities ran out of events")
        }
    }

    @inline(never)
    private mutating func countPayloadEncoding() throws {
        body = try source.prepare(event!, now: now, path: &path)
    }

    @inline(never)
    private mutating func countHeadersAndBearer() throws {
        _ = try reader.token(now: now)
        block = headers.block(for: event!, priority: event!.priority)
        apnsID = (idBits.next(), idBits.next())
    }

    @inline(never)
    private mutating func countSignature() throws {
        _ = try ProviderToken.sign(keyID: Self.keyID, teamID: Self.teamID, issuedAt: now, with: signer)
    }

    @inline(never)
    private mutating func countFramingAndTLS() throws {
        clock += 10_000
        try client.submit(tag: 0, intendedAt: clock, path: path, apnsID: apnsID, headers: block!, body: body)
        // A worker's body lives only while it is handed over: kept, it would share the
        // encoder's buffer, and the next encoding would allocate a new one.
        body = []
        _ = metrics.recordSent(now: clock, intendedAt: clock)
        client.perform { _ in preconditionFailure("no answer can come before the peer has read the push") }
    }

    @inline(never)
    private mutating func countResponseHandling() {
        client.perform { completion in
            metrics.record(completion, now: clock + 5_000, warmup: false, broadcastTo: nil)
            answered += 1
            if case .response(200, _) = completion.outcome, completion.apnsIDEchoed { accepted += 1 }
        }
    }
}
