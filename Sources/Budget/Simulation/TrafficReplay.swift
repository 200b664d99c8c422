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
    /// The recording, in arrival order, and the positions in it of the pushes that count: the
    /// replay reads the table a traffic report reads, rather than a copy of its pushes.
    private let table: TrafficTable
    private let positions: [Int32]
    /// Lines skipped because they were not accepted Live Activity pushes.
    public let skipped: Int
    /// The file's path, for reports.
    public let path: String

    /// Reads and checks a traffic file.
    /// - Throws: `BudgetError` naming the file and line of the first bad one.
    public init(path: String) throws {
        do {
            self.init(records: try TrafficFile.table(path), path: path)
        } catch {
            throw BudgetError("\(error)")
        }
    }

    /// The replay of `all`, recorded traffic read already; `path` names it in reports.
    public init(records all: TrafficTable, path: String) {
        table = all
        positions = all.indices.lazy.filter { all[$0].pushType == "liveactivity" && all[$0].accepted }.map(Int32.init)
        skipped = all.count - positions.count
        self.path = path
    }

    /// The pushes that count, in arrival order.
    public var records: some RandomAccessCollection<TrafficRecord> { positions.lazy.map { table[Int($0)] } }

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
        // By the token's number in the table: an array a token, not a dictionary of strings.
        var activityOfToken = [Int?](repeating: nil, count: table.tokenCount)
        var deviceOfToken = [Int?](repeating: nil, count: table.tokenCount)
        var devices = 0
        var pushes: [BudgetPush] = []
        pushes.reserveCapacity(positions.count)
        var activities = 0
        let origin = records.first?.receivedMs ?? 0
        for position in positions.lazy.map(Int.init) {
            let record = table[position]
            let token = table.tokenNumber(at: position)
            let phase = record.event ?? .update
            let activity: Int
            var device = 0
            if phase == .start {
                activity = activities
                activities += 1
                device = deviceOfToken[token] ?? devices
                if deviceOfToken[token] == nil { devices += 1 }
                deviceOfToken[token] = device
            } else if let known = activityOfToken[token] {
                activity = known
            } else {
                activity = activities
                activities += 1
                activityOfToken[token] = activity
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
        return (pushes, activities, devices)
    }
}
