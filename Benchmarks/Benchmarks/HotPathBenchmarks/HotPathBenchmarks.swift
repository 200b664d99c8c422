import Benchmark
import Budget
import Histogram
import HotPath
import LoadEngine
import Wire
import Workload

/// The sender core's hot path, one benchmark per cost a performance engineer asks about.
///
/// Allocation counts are deterministic, so they are gated tightly (an encode that starts to
/// allocate fails the check); times on a shared, noisy machine are gated loosely.
let benchmarks: @Sendable () -> Void = {
    // As `pushbench` does, before anything touches OpenSSL: its heap from a pool per thread.
    OpenSSLMemory.useThreadPools()
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: 10_000,
        thresholds: [
            .mallocCountTotal: .init(relative: [.p50: 0, .p90: 0], absolute: [.p50: 0, .p90: 0]),
            .wallClock: .init(relative: [.p50: 75]),
            .throughput: .init(relative: [.p50: 75]),
        ]
    )

    let key = try! ES256PrivateKey()
    let signingInput = Array(
        "eyJhbGciOiJFUzI1NiIsImtpZCI6IlBCS0VZMDAwMDEifQ.eyJpc3MiOiJQQlRFQU0wMDAxIiwiaWF0IjoxfQ".utf8
    )

    Benchmark("ES256 sign", configuration: .init(scalingFactor: .one)) { benchmark in
        let signer = try ES256Signer(key: key)
        for _ in benchmark.scaledIterations { blackHole(try signer.sign(signingInput)) }
    }

    Benchmark("Provider token, cached bearer") { benchmark in
        var reader = ProviderTokenCache.Reader(ProviderTokenCache(key: key, keyID: "PBKEY00001", teamID: "PBTEAM0001"))
        let now: Int64 = 1_790_000_000
        for _ in benchmark.scaledIterations { blackHole(try reader.token(now: now)) }
    }

    for sample in SamplePayload.allCases {
        let payload = sample.payload
        Benchmark("Encode \(sample.rawValue) payload") { benchmark in
            var encoder = PayloadEncoder()
            for _ in benchmark.scaledIterations {
                try encoder.encode(payload)
                blackHole(encoder.bytes.count)
            }
        }
    }

    Benchmark("Device token, 64 hex") { benchmark in
        let tokens = TokenSet(seed: 1, count: 1_000_000)
        var buffer = [UInt8](repeating: 0, count: tokens.hexLength)
        buffer.withUnsafeMutableBytes { destination in
            for index in benchmark.scaledIterations {
                tokens.writeHex(at: index % tokens.count, to: destination.baseAddress!)
                blackHole(destination[0])
            }
        }
    }

    // Both keep their stream (and model) across samples and take a million events per sample
    // through the whole match (107 M events), so they measure its mix of starts, minute ticks
    // and per-minute bucket census, not its first thousand starts over and over.
    let wholeMatch = Benchmark.Configuration(
        warmupIterations: 1,
        scalingFactor: .mega,
        maxDuration: .seconds(20),
        maxIterations: 107
    )
    let footballEvents = FootballFinal(modelled: false)
    Benchmark("Football scenario event, 1 M activities in one match", configuration: wholeMatch) { benchmark in
        for _ in benchmark.scaledIterations { footballEvents.step() }
    }

    // The same stream, each event through the device budget model: the difference between the
    // two is the model's cost per update (pushbench budget runs one such pair per thread).
    let footballBudget = FootballFinal(modelled: true)
    Benchmark("Budget model update, football 1 M activities", configuration: wholeMatch) { benchmark in
        for _ in benchmark.scaledIterations { footballBudget.step() }
    }

    // A worker's whole push between token refreshes: the scenario's next event, its payload,
    // the header block, nghttp2's HPACK and framing, libssl's records, an in-memory APNs peer
    // (nghttp2 and libssl too) answering 200, and the answer recorded. Steady state: the
    // connection is open and every buffer grown before measuring starts.
    Benchmark("Push through nghttp2 and libssl, in memory") { benchmark in
        var workload = try PushStageWorkload(now: 1_790_000_000)
        try workload.warmUp(pushes: PushStageWorkload.activities)
        try workload.sendPushes(2_000)
        benchmark.startMeasurement()
        try workload.sendPushes(benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
    }

    Benchmark("HdrHistogram record") { benchmark in
        var histogram = Histogram<UInt64>(
            lowestDiscernibleValue: 1,
            highestTrackableValue: 60_000_000,
            numberOfSignificantValueDigits: .three
        )
        histogram.autoResize = true  // as the engine's, so a resize is part of the cost
        var latency: UInt64 = 1
        for _ in benchmark.scaledIterations {
            latency = latency &* 6_364_136_223_846_793_005 &+ 1
            blackHole(histogram.record(latency >> 44))
        }
    }
}

/// A 1 M-activity football final streamed event by event, optionally through the budget model;
/// it starts over when the match ends. A class, so its state outlives one benchmark sample.
final class FootballFinal: @unchecked Sendable {
    private let scenario = try! Scenario.builtIn(named: "football").scaled(toActivities: 1_000_000)
    private let parameters = try! BudgetParameters.preset(named: "community").parameters
    private let modelled: Bool
    private var stream: ScenarioStream
    private var model: BudgetModel?

    init(modelled: Bool) {
        self.modelled = modelled
        stream = try! ScenarioStream(scenario)
        model = Self.makeModel(scenario, parameters)
    }

    private static func makeModel(_ scenario: Scenario, _ parameters: BudgetParameters) -> BudgetModel {
        BudgetModel(
            parameters: parameters,
            activities: 0..<scenario.activities,
            devices: 0..<scenario.activities,
            labels: .eventKinds(keysOf: [.football]),
            seed: scenario.seed
        )
    }

    /// The next event, into the model when modelled.
    func step() {
        guard let event = stream.next() else {
            stream = try! ScenarioStream(scenario)
            if modelled {
                blackHole(model.take()!.finish().pushes)
                model = Self.makeModel(scenario, parameters)
            }
            return
        }
        guard modelled else {
            blackHole(event.tokenIndex)
            return
        }
        model?.receive(
            BudgetPush(
                timeMs: event.timeMs,
                activity: event.activity,
                device: event.activity,
                phase: event.phase,
                priority: event.priority,
                timestampSeconds: event.timeMs / 1000,
                label: event.kind.ordinal
            )
        )
    }
}
