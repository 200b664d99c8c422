import ArrivalMatching
import Arrivals
import Benchmark
import DeviceEmulation
import Foundation
import RequestFiles
import ServiceDriver
import Workload

/// What a million devices cost PushBench in memory, and how long their report takes: the
/// fleet's bytes a device once every device has started (its state and its waiting actions),
/// the schedule's bytes an event while it is built, the arrival book's bytes a device once
/// every push has arrived, and the report's time with a call per activity (`per: activity`,
/// three updates each, a start call each: three million and one million calls). Each is
/// measured once per run, as the growth of the process's resident memory (`/proc/self/statm`):
/// what counts against a host's memory, and what the kick-off's 2 GiB budget is of.
let millionDevices: @Sendable () -> Void = {
    let bytesPerDevice = BenchmarkMetric.custom("fleet bytes a device", useScalingFactor: false)
    let scheduleBytes = BenchmarkMetric.custom("schedule bytes an event", useScalingFactor: false)
    let bookBytes = BenchmarkMetric.custom("book bytes a device", useScalingFactor: false)
    let reportMs = BenchmarkMetric.custom("report ms", useScalingFactor: false)
    let configuration = Benchmark.Configuration(
        metrics: [bytesPerDevice, scheduleBytes, bookBytes, reportMs],
        warmupIterations: 0,
        maxDuration: .seconds(600),
        maxIterations: 1,
        thresholds: [bytesPerDevice: .init(absolute: [.p100: 64])]
    )
    Benchmark("A million devices: bytes a device and the report's time", configuration: configuration) { benchmark in
        let run = MillionDeviceRun(devices: 1_000_000)
        benchmark.measurement(bytesPerDevice, run.fleetBytesPerDevice)
        benchmark.measurement(scheduleBytes, run.scheduleBytesPerEvent)
        benchmark.measurement(bookBytes, run.bookBytesPerDevice)
        benchmark.measurement(reportMs, run.reportMs)
        print(run.summary)
    }
}

/// One million-device lifecycle, played without sockets: every device started by its own start
/// call, its token reported to the service (all but one in a hundred), three update calls each,
/// each push arriving once.
struct MillionDeviceRun {
    var fleetBytesPerDevice = 0
    var scheduleBytesPerEvent = 0
    var bookBytesPerDevice = 0
    var reportMs = 0
    var summary = ""

    init(devices: Int) {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples").path
        let file = try! APIFile(
            path: examples + "/netmera-lifecycle.yaml",
            environment: ["PUSHBENCH_SERVICE_PORT": "8080", "NETMERA_API_KEY": "benchmark"]
        )
        let workload = try! ServiceWorkload(
            scenario: try! Scenario.builtIn(named: "football").scaled(toActivities: devices),
            perActivity: true,
            requests: 3 * devices,
            timing: .scenarioTime(scale: 120),
            startsPerActivity: true
        )
        let clock = ProfileClock()
        let residentBeforeFleet = Self.residentBytes()
        let fleet = DeviceFleet(workload: workload, settings: DeviceSettings(), clock: clock)
        fleet.start(atNs: clock.nowNs)
        let startBody = DeviceBench.matchStartBody
        for activity in 0..<devices {
            _ = fleet.arrived(
                DeviceBench.arrival(workload.pushToStartToken(of: activity), .start, body: startBody).at(clock.nowNs)
            )
        }
        fleetBytesPerDevice = (Self.residentBytes() - residentBeforeFleet) / devices

        let residentBeforeSchedule = Self.residentBytes()
        var schedule: PushSchedule? = workload.schedule
        scheduleBytesPerEvent = (Self.residentBytes() - residentBeforeSchedule) / max(1, schedule!.events)
        let residentBeforeBook = Self.residentBytes()
        let book = ArrivalBook(
            schedule: schedule!,
            startNs: clock.nowNs,
            callSizes: workload.calls.map(\.activities.count),
            tokensReported: true
        )
        schedule = nil
        let nowNs = clock.nowNs
        for activity in 0..<devices where activity % 100 != 0 {
            book.learned(token: workload.updateToken(of: activity), atNs: nowNs)
        }
        for call in workload.calls.indices { book.sent(call: call, atNs: nowNs + 1) }
        let updateBody = Array(#"{"aps":{"event":"update","content-state":{}}}"#.utf8)
        for (index, call) in workload.calls.enumerated() {
            for activity in call.activities where activity % 100 != 0 {
                let push = DeviceBench.arrival(workload.updateToken(of: activity), .update, body: updateBody)
                    .at(nowNs + 2 + Int64(index))
                if fleet.arrived(push) { book.arrived(push) }
            }
        }
        bookBytesPerDevice = (Self.residentBytes() - residentBeforeBook) / devices

        let began = ContinuousClock.now
        let figures = LifecycleOutcome(file: file, fleet: fleet, arrivals: book).figures()
        reportMs = Int((ContinuousClock.now - began) / .milliseconds(1))
        summary = """
            \(devices.formatted()) devices, \(workload.calls.count.formatted()) update calls, \
            \(workload.starts.count.formatted()) start calls: the fleet \(fleetBytesPerDevice) bytes a device, \
            the schedule \(scheduleBytesPerEvent) bytes an event while built, the book \(bookBytesPerDevice) \
            bytes a device; the report \(reportMs) ms (\(figures.activities.updated.formatted()) updated, \
            \(figures.activities.startedNeverUpdated.formatted()) never)
            """
    }

    /// The process's resident bytes now.
    static func residentBytes() -> Int {
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
