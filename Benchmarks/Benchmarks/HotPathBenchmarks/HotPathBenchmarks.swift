import Benchmark
import Histogram
import HotPath
import Wire
import Workload

/// The sender core's hot path, one benchmark per cost a performance engineer asks about.
///
/// Allocation counts are deterministic, so they are gated tightly (an encode that starts to
/// allocate fails the check); times on a shared, noisy machine are gated loosely.
let benchmarks: @Sendable () -> Void = {
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

    Benchmark("Football scenario event, 1 M activities in one match") { benchmark in
        let scenario = try Scenario.builtIn(named: "football").scaled(toActivities: 1_000_000)
        var stream = try ScenarioStream(scenario)
        for _ in benchmark.scaledIterations {
            if let event = stream.next() {
                blackHole(event.tokenIndex)
            } else {
                stream = try ScenarioStream(scenario)
            }
        }
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
