import Dispatch
import Synchronization
import Workload

/// Runs a scenario's pushes through the budget model in simulated time, on worker threads,
/// with no network: what `pushbench budget` does.
///
/// Each worker streams the events of its own activities (whole devices, so a device's
/// push-to-start bucket lives on one worker) into its own `BudgetModel`; the tallies merge
/// exactly, so the result does not depend on the number of threads.
public struct BudgetSimulation: Sendable {
    /// The pushes, as the sender would send them (every push is assumed accepted by APNs).
    public var scenario: Scenario
    /// The device-side numbers.
    public var parameters: BudgetParameters
    /// How many consecutive activities share a device (and its push-to-start bucket).
    public var activitiesPerDevice: Int
    /// Worker threads.
    public var threads: Int
    /// Keep a record of every activity whose index is a multiple of this (0: none).
    public var sampleEvery: Int

    /// Creates a simulation.
    public init(
        scenario: Scenario,
        parameters: BudgetParameters,
        activitiesPerDevice: Int = 1,
        threads: Int = 1,
        sampleEvery: Int = 0
    ) {
        self.scenario = scenario
        self.parameters = parameters
        self.activitiesPerDevice = activitiesPerDevice
        self.threads = threads
        self.sampleEvery = sampleEvery
    }

    /// Runs the simulation.
    ///
    /// - Parameters:
    ///   - shouldStop: asked every 65,536 pushes by each worker; once it says yes (Ctrl-C),
    ///     the workers stop streaming and the result, marked interrupted, covers what they
    ///     simulated.
    ///   - progress: called about once a second from the calling thread with the number of
    ///     pushes simulated so far.
    /// - Throws: `WorkloadError` for an invalid scenario, `BudgetError` for invalid parameters.
    public func run(
        shouldStop: @escaping @Sendable () -> Bool = { false },
        progress: (Int) -> Void = { _ in }
    ) throws -> BudgetResult {
        try parameters.validate()
        try scenario.validate()
        guard activitiesPerDevice >= 1 else { throw BudgetError("activities-per-device must be at least 1") }
        guard threads >= 1 else { throw BudgetError("threads must be at least 1") }
        let total = scenario.activities
        let deviceCount = (total + activitiesPerDevice - 1) / activitiesPerDevice
        let workers = min(threads, deviceCount)
        let labels = PushLabels.eventKinds(keysOf: scenario.cohorts.map(\.kind))
        let counter = ProgressCounter()
        let tallies = Mutex<[BudgetTally?]>(Array(repeating: nil, count: workers))
        let clock = ContinuousClock()
        let started = clock.now
        let done = DispatchSemaphore(value: 0)
        let simulation = self
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let devices = try! Shard(index: worker, count: workers).range(in: deviceCount)
                let activities =
                    devices.lowerBound * activitiesPerDevice..<min(total, devices.upperBound * activitiesPerDevice)
                let tally = simulation.simulate(
                    activities: activities,
                    devices: devices,
                    labels: labels,
                    counter,
                    shouldStop
                )
                tallies.withLock { $0[worker] = tally }
            }
            done.signal()
        }
        while done.wait(timeout: .now() + .seconds(1)) == .timedOut {
            progress(counter.pushes.load(ordering: .relaxed))
        }
        let elapsed = clock.now - started
        var merged = BudgetTally(labels: labels)
        for tally in tallies.withLock({ $0 }) { merged.merge(tally!) }
        return BudgetResult(
            input: .scenario,
            name: scenario.name,
            activities: scenario.activities,
            seed: scenario.seed,
            parameters: parameters,
            activitiesPerDevice: activitiesPerDevice,
            threads: workers,
            wallSeconds: elapsed.seconds,
            tally: merged,
            interrupted: shouldStop()
        )
    }

    /// One worker's part: the events of `activities` through a model of them.
    private func simulate(
        activities: Range<Int>,
        devices: Range<Int>,
        labels: PushLabels,
        _ counter: ProgressCounter,
        _ shouldStop: @Sendable () -> Bool
    ) -> BudgetTally {
        var model = BudgetModel(
            parameters: parameters,
            activities: activities,
            devices: devices,
            labels: labels,
            seed: scenario.seed,
            sampleEvery: sampleEvery
        )
        var stream = try! ScenarioStream(scenario, activities: activities)
        var pending = 0
        let perDevice = activitiesPerDevice
        while let event = stream.next() {
            var push = BudgetPush(
                timeMs: event.timeMs,
                activity: event.activity,
                device: perDevice == 1 ? event.activity : event.activity / perDevice,
                phase: event.phase,
                priority: event.priority,
                timestampSeconds: event.timeMs / 1000,
                label: event.kind.ordinal
            )
            guard event.isBroadcast else {
                model.receive(push)
                pending += 1
                if pending >= 1 << 16 {
                    counter.pushes.add(pending, ordering: .relaxed)
                    pending = 0
                    if shouldStop() { break }
                }
                continue
            }
            for activity in event.subscribers {
                push.activity = activity
                push.device = perDevice == 1 ? activity : activity / perDevice
                model.receive(push)
            }
            model.countBroadcast(deliveries: event.subscribers.count, sent: event.sentHere)
            pending += event.subscribers.count
            if pending >= 1 << 16 {
                counter.pushes.add(pending, ordering: .relaxed)
                pending = 0
                if shouldStop() { break }
            }
        }
        counter.pushes.add(pending, ordering: .relaxed)
        return model.finish()
    }
}

/// Pushes simulated so far, across workers, for progress lines.
final class ProgressCounter: Sendable {
    let pushes = Atomic<Int>(0)
}
