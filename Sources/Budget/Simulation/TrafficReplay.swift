import Foundation
import Workload

/// Runs recorded traffic (`pushbench mock --record`) through the budget model: what a real
/// sender's update policy does to the device budget.
///
/// Only `liveactivity` pushes the mock accepted (200) count. Each `start` begins a new activity on the device of its
/// push-to-start token; every other push belongs to the activity of its token, which began at
/// its first push. (An activity's update token cannot be linked to the start that created it
/// from the traffic alone, so a started activity and its updates are counted apart.) Time runs
/// from the first recorded push; `aps.timestamp` defaults to the receive time.
public struct TrafficReplay: Sendable {
    /// The file's pushes, in receive order.
    public let records: [TrafficRecord]
    /// Lines skipped because they were not accepted Live Activity pushes.
    public let skipped: Int
    /// The file's path, for reports.
    public let path: String

    /// Reads and checks a traffic file.
    /// - Throws: `BudgetError` naming the file and line of the first bad one.
    public init(path: String) throws {
        do {
            self.init(records: try TrafficFile.read(path), path: path)
        } catch {
            throw BudgetError("\(error)")
        }
    }

    /// The replay of `all`, recorded traffic read already; `path` names it in reports.
    public init(records all: [TrafficRecord], path: String) {
        let records = all.filter { $0.pushType == "liveactivity" && $0.accepted }
        let skipped = all.count - records.count
        self.path = path
        self.records = records.inArrivalOrder()
        self.skipped = skipped
    }

    /// Runs the records through a model of `parameters`.
    public func run(parameters: BudgetParameters, sampleEvery: Int = 0) throws -> BudgetResult {
        try parameters.validate()
        let clock = ContinuousClock()
        let started = clock.now
        let (pushes, activities, devices) = budgetPushes()
        var model = BudgetModel(
            parameters: parameters,
            activities: 0..<activities,
            devices: 0..<max(1, devices),
            labels: .phases,
            seed: 0,
            sampleEvery: sampleEvery
        )
        for push in pushes { model.receive(push) }
        let tally = model.finish()
        let elapsed = clock.now - started
        return BudgetResult(
            input: .traffic,
            name: path,
            activities: activities,
            seed: nil,
            parameters: parameters,
            activitiesPerDevice: 1,
            threads: 1,
            wallSeconds: elapsed.seconds,
            tally: tally
        )
    }

    /// The records as the model takes them: a start begins a new activity on its push-to-start
    /// token's device; an update or end goes to its token's activity (a new one the first time).
    private func budgetPushes() -> (pushes: [BudgetPush], activities: Int, devices: Int) {
        var activityOfToken: [String: Int] = [:]
        var deviceOfToken: [String: Int] = [:]
        var pushes: [BudgetPush] = []
        pushes.reserveCapacity(records.count)
        var activities = 0
        let origin = records.first?.receivedMs ?? 0
        for record in records {
            let phase = record.event ?? .update
            let activity: Int
            var device = 0
            if phase == .start {
                activity = activities
                activities += 1
                device = deviceOfToken[record.deviceToken] ?? deviceOfToken.count
                deviceOfToken[record.deviceToken] = device
            } else if let known = activityOfToken[record.deviceToken] {
                activity = known
            } else {
                activity = activities
                activities += 1
                activityOfToken[record.deviceToken] = activity
            }
            pushes.append(
                BudgetPush(
                    timeMs: record.receivedMs - origin,
                    activity: activity,
                    device: device,
                    phase: phase,
                    priority: record.priority,
                    timestampSeconds: record.timestampSeconds ?? record.receivedMs / 1000,
                    label: PushLabels.phaseLabel(phase)
                )
            )
        }
        return (pushes, activities, deviceOfToken.count)
    }
}
