import Workload

/// The device-side budget of a range of activities, fed their accepted pushes in time order.
///
/// It implements the rules of `../shared/DESIGN.md` (Budget model) exactly: a priority-10
/// token bucket per activity, low-priority windows that show their latest update, a
/// push-to-start bucket per device, the active limit, `end`, and stale timestamps. Time is in
/// milliseconds; buckets refill continuously, computed when read. One model per worker (a
/// value, so the hot path pays no exclusivity checks); `finish` returns what it counted.
public struct BudgetModel {
    /// The numbers the model runs with.
    public let parameters: BudgetParameters
    /// The activities this model owns.
    public let activities: Range<Int>
    /// The devices this model owns (their push-to-start buckets).
    public let devices: Range<Int>

    private var states: [ActivityBudget]
    // The priority-10 buckets, apart so the per-minute sweep touches only them.
    private var tokens: [Double]
    private var refilledAtMs: [Int64]
    /// End of each activity's life (its `end`, or its start plus the limit); 0 until it begins.
    private var liveUntilMs: [Int64]
    private var frequent: [Bool]
    private var startTokens: [Double]
    private var startRefilledAtMs: [Int64]
    private var unresolved = UnresolvedUpdates()
    private var tally: BudgetTally
    private var sweptMinutes = 0
    private let sampleEvery: Int
    private let limitMs: Int64
    private let windowMs: Int64
    private let plainRatePerMs: Double
    private let frequentRatePerMs: Double
    private let plainBurst: Double
    private let frequentBurst: Double
    private let startRatePerMs: Double
    private static let tolerance = 1e-9
    /// Mixed into the seed for the frequent-updates choice, so it is independent of the
    /// scenario's other draws from the same seed.
    private static let frequentOffDomain: UInt64 = 0x6672_6571_7565_6e74

    /// Creates the model of `activities` and `devices`.
    ///
    /// - Parameters:
    ///   - seed: picks the users who turned frequent updates off, so a run is reproducible.
    ///   - sampleEvery: keep a record of every activity whose index is a multiple of this
    ///     (1: all of them, 0: none).
    public init(
        parameters: BudgetParameters,
        activities: Range<Int>,
        devices: Range<Int>,
        labels: PushLabels,
        seed: UInt64,
        sampleEvery: Int = 0
    ) {
        self.parameters = parameters
        self.activities = activities
        self.devices = devices
        self.sampleEvery = sampleEvery
        states = [ActivityBudget](repeating: ActivityBudget(), count: activities.count)
        tokens = [Double](repeating: 0, count: activities.count)
        refilledAtMs = [Int64](repeating: 0, count: activities.count)
        liveUntilMs = [Int64](repeating: 0, count: activities.count)
        frequent = activities.map { activity in
            guard parameters.frequentUpdates else { return false }
            var random = SplitMix64(seed: seed ^ Self.frequentOffDomain, index: UInt64(activity))
            return random.nextUnit() >= parameters.frequentOffFraction
        }
        startTokens = [Double](repeating: 0, count: devices.count)
        startRefilledAtMs = [Int64](repeating: .min, count: devices.count)
        tally = BudgetTally(labels: labels)
        limitMs = Int64((parameters.activeLimitSeconds * 1000).rounded())
        windowMs = Int64((parameters.lowPriorityIntervalSeconds * 1000).rounded())
        plainBurst = parameters.burst
        frequentBurst = parameters.burst * parameters.frequentFactor
        plainRatePerMs = parameters.perHour / 3_600_000
        frequentRatePerMs = parameters.perHour * parameters.frequentFactor / 3_600_000
        startRatePerMs = parameters.startPerHour / 3_600_000
    }

    /// Applies one accepted push. Pushes must come in non-decreasing `timeMs`, with activity
    /// and device inside the model's ranges.
    public mutating func receive(_ push: BudgetPush) {
        let time = push.timeMs
        advance(to: time)
        let index = push.activity - activities.lowerBound
        precondition(states.indices.contains(index), "activity \(push.activity) is not in \(activities)")
        let minute = Int(time / 60_000)
        switch BudgetTally.priorityIndex(push.priority) {
        case 0: tally.minutes[minute].pushesP10 += 1
        case 1: tally.minutes[minute].pushesP5 += 1
        default: tally.minutes[minute].pushesP1 += 1
        }
        if states[index].status == .waiting {
            states[index].device = push.device
            if push.phase == .start {
                guard takeStart(device: push.device - devices.lowerBound, at: time) else {
                    states[index].status = .notStarted
                    tally.activitiesNotStarted += 1
                    count(.startThrottled, index, push)
                    return
                }
            }
            begin(index, at: time)
            if push.phase == .start {
                appendUnresolved(index, push)
                show(index, at: time, sentAtMs: time, timestamp: push.timestampSeconds)
                count(.shown, index, push)
                return
            }
        }
        closeWindow(index, ifDueBy: time)
        switch states[index].status {
        case .notStarted:
            count(.notStarted, index, push)
            return
        case .ended:
            tally.droppedAfterEnd += 1
            count(.droppedEnded, index, push)
            return
        case .live, .waiting:
            break
        }
        if time >= states[index].beganAtMs + limitMs {
            tally.droppedAfterLimit += 1
            count(.droppedEnded, index, push)
            return
        }
        if push.timestampSeconds < states[index].newestShownTimestamp {
            count(.droppedStale, index, push)
            return
        }
        appendUnresolved(index, push)
        if BudgetTally.priorityIndex(push.priority) == 0 {
            if takeToken(index, at: time) {
                coalescePending(index)
                show(index, at: time, sentAtMs: time, timestamp: push.timestampSeconds)
                count(.shown, index, push)
            } else {
                if states[index].firstThrottleMs < 0 {
                    states[index].firstThrottleMs = time
                    tally.activitiesThrottled += 1
                    tally.minutes[minute].firstThrottles += 1
                    tally.firstThrottleAfterStartMs.record(UInt64(time - states[index].beganAtMs))
                }
                count(.throttled, index, push)
            }
        } else {
            if states[index].windowEndMs < 0 {
                states[index].windowEndMs = time + windowMs
            } else {
                coalescePending(index)
            }
            states[index].pendingSendMs = time
            states[index].pendingTimestamp = push.timestampSeconds
            states[index].pendingLabel = Int32(push.label)
            states[index].pendingPriority = Int32(push.priority)
        }
        if push.phase == .end {
            states[index].status = .ended
            liveUntilMs[index] = time
        }
    }

    /// Closes every open window, counts updates never covered by a shown state, takes the
    /// last minute's bucket census, and returns the tally.
    public mutating func finish() -> BudgetTally {
        while sweptMinutes < tally.minutes.count {
            census(minute: sweptMinutes)
            sweptMinutes += 1
        }
        for index in states.indices {
            closeWindow(index, ifDueBy: .max)
            var entry = states[index].unresolvedHead
            while entry >= 0 {
                tally.neverShownByLabel[Int(unresolved.label[Int(entry)])] += 1
                states[index].neverShown += 1
                entry = unresolved.remove(entry)
            }
            states[index].unresolvedHead = -1
            states[index].unresolvedTail = -1
            let activity = activities.lowerBound + index
            if sampleEvery > 0 && activity % sampleEvery == 0 { tally.sampled.append(record(index)) }
        }
        return tally
    }

    // MARK: - Rules

    private mutating func begin(_ index: Int, at time: Int64) {
        states[index].status = .live
        states[index].beganAtMs = time
        tokens[index] = frequent[index] ? frequentBurst : plainBurst
        refilledAtMs[index] = time
        liveUntilMs[index] = time + limitMs
        tally.activitiesBegun += 1
        if frequent[index] { tally.activitiesFrequent += 1 }
    }

    /// The bucket of activity `index` at `time`, refilled continuously up to its burst.
    @inline(__always)
    private func tokens(_ index: Int, at time: Int64) -> Double {
        let isFrequent = frequent[index]
        let refilled =
            tokens[index] + Double(time - refilledAtMs[index]) * (isFrequent ? frequentRatePerMs : plainRatePerMs)
        return min(isFrequent ? frequentBurst : plainBurst, refilled)
    }

    private mutating func takeToken(_ index: Int, at time: Int64) -> Bool {
        let available = tokens(index, at: time)
        refilledAtMs[index] = time
        return Self.take(from: available, leaving: &tokens[index])
    }

    /// Draws on the push-to-start bucket of `device`, full at its first start.
    private mutating func takeStart(device: Int, at time: Int64) -> Bool {
        precondition(startTokens.indices.contains(device), "device \(device + devices.lowerBound) is not in \(devices)")
        var available = parameters.startBurst
        if startRefilledAtMs[device] != .min {
            let refilled = startTokens[device] + Double(time - startRefilledAtMs[device]) * startRatePerMs
            available = min(parameters.startBurst, refilled)
        }
        startRefilledAtMs[device] = time
        return Self.take(from: available, leaving: &startTokens[device])
    }

    /// A bucket holding `available` shows (takes 1) when it has at least one token, within the
    /// tolerance; either way `tokens` is what it holds after.
    @inline(__always)
    private static func take(from available: Double, leaving tokens: inout Double) -> Bool {
        let shown = available >= 1 - tolerance
        tokens = shown ? available - 1 : available
        return shown
    }

    /// Ends the open low-priority window if it ends by `time`, showing its pending update at
    /// the window's end. A window ending at W closes before pushes sent at W are handled.
    private mutating func closeWindow(_ index: Int, ifDueBy time: Int64) {
        let end = states[index].windowEndMs
        guard end >= 0 && end <= time else { return }
        states[index].windowEndMs = -1
        if let sent = settlePending(index, as: .shown) {
            show(index, at: end, sentAtMs: sent, timestamp: states[index].pendingTimestamp)
        }
    }

    /// A priority-10 update was shown: the pending low-priority one (sent before it) will not be.
    private mutating func coalescePending(_ index: Int) {
        _ = settlePending(index, as: .coalesced)
    }

    /// Gives the pending low-priority update, if any, its outcome and returns its send time.
    private mutating func settlePending(_ index: Int, as outcome: BudgetOutcome) -> Int64? {
        let sent = states[index].pendingSendMs
        guard sent >= 0 else { return nil }
        states[index].pendingSendMs = -1
        tally.count(
            outcome,
            label: Int(states[index].pendingLabel),
            priority: Int(states[index].pendingPriority),
            sentAtMs: sent
        )
        states[index].counts[outcome] += 1
        return sent
    }

    /// The state of the update sent at `sentAtMs` appears at `time`: every update sent no later
    /// than it has now been covered, after the lag between its send and `time`.
    private mutating func show(_ index: Int, at time: Int64, sentAtMs: Int64, timestamp: Int64) {
        states[index].newestShownTimestamp = max(states[index].newestShownTimestamp, timestamp)
        var entry = states[index].unresolvedHead
        while entry >= 0 && unresolved.sendMs[Int(entry)] <= sentAtMs {
            let lag = time - unresolved.sendMs[Int(entry)]
            tally.lagMs.record(UInt64(lag))
            tally.lagMsByLabel[Int(unresolved.label[Int(entry)])].record(UInt64(lag))
            if lag > states[index].maxLagMs { states[index].maxLagMs = lag }
            entry = unresolved.remove(entry)
        }
        states[index].unresolvedHead = entry
        if entry < 0 { states[index].unresolvedTail = -1 }
    }

    private mutating func appendUnresolved(_ index: Int, _ push: BudgetPush) {
        let entry = unresolved.append(
            sendMs: push.timeMs,
            label: Int32(push.label),
            after: states[index].unresolvedTail
        )
        if states[index].unresolvedHead < 0 { states[index].unresolvedHead = entry }
        states[index].unresolvedTail = entry
    }

    @inline(__always)
    private mutating func count(_ outcome: BudgetOutcome, _ index: Int, _ push: BudgetPush) {
        tally.count(outcome, label: push.label, priority: push.priority, sentAtMs: push.timeMs)
        states[index].counts[outcome] += 1
    }

    // MARK: - Minutes

    /// Takes the bucket census at the end of every minute that ended by `time`.
    private mutating func advance(to time: Int64) {
        let minute = Int(time / 60_000)
        tally.extend(through: minute)
        while sweptMinutes < minute {
            census(minute: sweptMinutes)
            sweptMinutes += 1
        }
    }

    /// Counts, at the end of `minute`, the live activities, the exhausted ones, and the share
    /// of their bucket each has left.
    private mutating func census(minute: Int) {
        let end = Int64(minute + 1) * 60_000
        var live = 0
        var exhausted = 0
        let base = minute * 101
        for index in liveUntilMs.indices where liveUntilMs[index] > end {
            let available = tokens(index, at: end)
            let burst = frequent[index] ? frequentBurst : plainBurst
            let percent = min(100, max(0, Int(available / burst * 100)))
            tally.remainingPercent[base + percent] += 1
            live += 1
            if available < 1 - Self.tolerance { exhausted += 1 }
        }
        tally.minutes[minute].live = live
        tally.minutes[minute].exhausted = exhausted
    }

    private func record(_ index: Int) -> ActivityRecord {
        let state = states[index]
        let began = state.status != .waiting && state.status != .notStarted
        return ActivityRecord(
            activity: activities.lowerBound + index,
            device: state.device,
            beganAtMs: began ? state.beganAtMs : nil,
            firstThrottleMs: state.firstThrottleMs >= 0 ? state.firstThrottleMs : nil,
            frequent: frequent[index],
            outcomes: BudgetOutcome.allCases.map { Int(state.counts[$0]) },
            maxLagMs: state.maxLagMs,
            neverShown: Int(state.neverShown),
            tokensLeft: began ? tokens(index, at: liveUntilMs[index]) : 0
        )
    }
}
