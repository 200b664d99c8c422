import ArrivalMatching
import Arrivals
import Benchmark
import DeviceEmulation
import Foundation
import RequestFiles
import Workload

/// What playing the devices costs PushBench, per device event, without sockets: the checks a
/// device makes of a start push it receives, of an update it shows or drops, and a token report
/// taken from the devices' schedule and rendered as the request file writes it. The budget is
/// 20 µs an event, about what PushBench's own sender spends a push; `lifecycle-kickoff.sh`
/// measures the same end to end, libcurl and the service's answers included.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 2,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 200,
        thresholds: [.wallClock: .init(relative: [.p50: 75]), .throughput: .init(relative: [.p50: 75])]
    )
    let devices = DeviceBench()

    Benchmark("Device event: a start received") { benchmark in
        let (fleet, clock) = devices.fleet()
        benchmark.startMeasurement()
        for activity in benchmark.scaledIterations {
            blackHole(fleet.arrived(devices.starts[activity].at(clock.nowNs)))
        }
    }

    Benchmark("Device event: a token report taken and rendered") { benchmark in
        let (fleet, clock) = devices.fleet(started: benchmark.scaledIterations.count)
        benchmark.startMeasurement()
        for (request, dueNs) in fleet.takeDue(nowNs: clock.nowNs + 3_600_000_000_000) {
            blackHole(devices.file.deviceRequest(request, of: fleet, intendedNanos: UInt64(dueNs)))
        }
    }

    Benchmark("Device event: an update shown") { benchmark in
        let (fleet, clock) = devices.fleet(started: benchmark.scaledIterations.count)
        benchmark.startMeasurement()
        for activity in benchmark.scaledIterations {
            blackHole(fleet.arrived(devices.updates[activity].at(clock.nowNs)))
        }
    }

    Benchmark("Device event: a push dropped (after its activity ended)") { benchmark in
        let (fleet, clock) = devices.fleet(started: benchmark.scaledIterations.count)
        for activity in benchmark.scaledIterations {
            _ = fleet.arrived(devices.ends[activity].at(clock.nowNs))
        }
        benchmark.startMeasurement()
        for activity in benchmark.scaledIterations {
            blackHole(fleet.arrived(devices.updates[activity].at(clock.nowNs)))
        }
    }

    millionDevices()
    recordedPushes()
}

extension Arrival {
    /// The same push, arriving at `receivedNs`.
    func at(_ receivedNs: Int64) -> Arrival {
        var arrival = self
        arrival.receivedNs = receivedNs
        return arrival
    }
}

/// A football final of 10,000 fans started by one call, as the Netmera-shaped lifecycle file
/// drives it, with each device's pushes made ahead: what the benchmarks hand the fleet.
final class DeviceBench: Sendable {
    let file: APIFile
    let workload: ServiceWorkload
    let starts: [Arrival]
    let updates: [Arrival]
    let ends: [Arrival]
    /// A valid start to a football fan's device.
    static let matchStartBody = Array(
        (#"{"aps":{"timestamp":1800000000,"event":"start","content-state":{"homeScore":0,"awayScore":0,"#
            + #""minute":0,"period":1},"attributes-type":"MatchAttributes","attributes":{"groupID":0},"#
            + #""alert":{"title":"Kick-off","body":"The match has started"},"input-push-token":1}}"#).utf8
    )
    static let updateBody = Array(
        #"{"aps":{"timestamp":1800000060,"event":"update","content-state":{"homeScore":1,"awayScore":0,"minute":1,"period":1,"pushbench_event":0}}}"#
            .utf8
    )

    init() {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples").path
        file = try! APIFile(
            path: examples + "/netmera-lifecycle.yaml",
            environment: ["PUSHBENCH_SERVICE_PORT": "8080", "NETMERA_API_KEY": "benchmark"]
        )
        let workload = try! ServiceWorkload(
            scenario: try! Scenario.builtIn(named: "football").scaled(toActivities: 10_000),
            perActivity: false,
            requests: 3,
            timing: .scenarioTime(scale: 120),
            startsPerActivity: false
        )
        self.workload = workload
        let activities = 0..<workload.activities
        starts = activities.map { Self.arrival(workload.pushToStartToken(of: $0), .start, body: Self.matchStartBody) }
        updates = activities.map { Self.arrival(workload.updateToken(of: $0), .update, body: Self.updateBody) }
        ends = activities.map { Self.arrival(workload.updateToken(of: $0), .end, body: Self.updateBody) }
    }

    /// A push of `body` to `token` as the mock hands it on: a Live Activity push of `event` it
    /// accepted, decoded on the mock's thread before the fleet is given it.
    static func arrival(_ token: String, _ event: LifecyclePhase, body: [UInt8]) -> Arrival {
        Arrival(receivedNs: 0, deviceToken: token, status: 200, event: event, body: body)
    }

    /// A fresh fleet on a fresh clock, its first `started` activities started.
    func fleet(started: Int = 0) -> (DeviceFleet, ProfileClock) {
        let clock = ProfileClock()
        let fleet = DeviceFleet(workload: workload, settings: DeviceSettings(), clock: clock)
        fleet.start(atNs: clock.nowNs)
        for activity in 0..<started { _ = fleet.arrived(starts[activity].at(clock.nowNs)) }
        return (fleet, clock)
    }
}
