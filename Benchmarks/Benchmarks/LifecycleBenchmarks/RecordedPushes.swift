import Benchmark
import Foundation
import Workload

/// What the reports after a million-device kick-off hold of its recording: the pushes of a
/// million devices (a start push to each push-to-start token, three updates to each update
/// token: four million pushes to two million tokens, shaped as the Go service sends them) read
/// into a `TrafficTable`, measured as the growth of the process's resident memory. The traffic
/// report and the sender doctor read the recording through it; before it, they held every push
/// as a `TrafficRecord` and its strings, and copies of them (9.5 GB at a million devices).
let recordedPushes: @Sendable () -> Void = {
    let bytesPerPush = BenchmarkMetric.custom("table bytes a push", useScalingFactor: false)
    let configuration = Benchmark.Configuration(
        metrics: [bytesPerPush],
        warmupIterations: 0,
        maxDuration: .seconds(600),
        maxIterations: 1,
        thresholds: [bytesPerPush: .init(absolute: [.p100: 320])]
    )
    Benchmark("A million devices' recording: the traffic table's bytes a push", configuration: configuration) {
        benchmark in
        let devices = 1_000_000
        let before = MillionDeviceRun.residentBytes()
        let table = TrafficTable((0..<4 * devices).lazy.map { recordedPush($0, devices: devices) })
        let bytes = (MillionDeviceRun.residentBytes() - before) / table.count
        benchmark.measurement(bytesPerPush, bytes)
        print("\(table.count.formatted()) pushes to \(table.tokenCount.formatted()) tokens: \(bytes) bytes a push")
    }
}

/// The `index`th push of a kick-off of `devices` devices: first every start, then three rounds
/// of updates, a millisecond apart per hundred pushes.
private func recordedPush(_ index: Int, devices: Int) -> TrafficRecord {
    let device = index % devices
    let start = index < devices
    let receivedMs = 1_800_000_000_000 + Int64(index / 100)
    return TrafficRecord(
        receivedMs: receivedMs,
        connection: 40_000 + index % 4,
        deviceToken: String(format: "%016lx%016lx%016lx%016lx", device, start ? 1 : 2, device &* 31, device &* 7),
        pushType: "liveactivity",
        topic: "com.netmera.demo.push-type.liveactivity",
        priority: 10,
        expiration: "\(receivedMs / 1000 + 3600)",
        payloadBytes: start ? 420 : 260,
        event: start ? .start : .update,
        timestampSeconds: receivedMs / 1000,
        staleDateSeconds: receivedMs / 1000 + 900,
        providerToken: "5c1e0f2d3b4a6978",
        issuedAtSeconds: receivedMs / 1000 - 60,
        streamsOpen: index % 100 + 1,
        payloadDigest: String(format: "%016llx", UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
    )
}
