import Histogram
import Workload

/// The device-side budget of a range of activities, fed their accepted pushes in time order.
///
/// It implements the rules of `docs/budget-model.md` exactly: a priority-10
/// token bucket per activity, low-priority windows that show their latest update, a
/// push-to-start bucket per device, the active limit, `end`, and stale timestamps. Time is in
/// milliseconds; buckets refill continuously, computed when read. One model per worker (a
/// value, so the hot path pays no exclusivity checks); `finish` returns what it counted.
public struct BudgetModel: ~Copyable {
    /// The numbers the model runs with.
    public let parameters: BudgetParameters
    /// The activities this model owns.
    public let activities: Range<Int>
    /// The devices this model owns (their push-to-start buckets).
    public let devices: Range<Int>

    private let labels: PushLabels
    private var states: ScratchBuffer<ActivityBudget>
    // The priority-10 buckets, apart so the per-minute census touches only them.
    private var tokens: ScratchBuffer<Double>
    private var refilledAtMs: ScratchBuffer<Int64>
    /// End of each activity's life (its `end`, or its start plus the limit); 0 until it begins.
    private var liveUntilMs: ScratchBuffer<Int64>
    private var frequent: ScratchBuffer<Bool>
    private var startTokens: ScratchBuffer<Double>
    private var startRefilledAtMs: ScratchBuffer<Int64>
    private var unresolved = UnresolvedUpdates()
    /// Pushes by label, priority and outcome, laid out as `BudgetTally.outcomes`.
    private var outcomes: ScratchBuffer<Int>
    /// Per minute: `MinuteField`s.
    private var minuteFields = ScratchBuffer<Int>(count: 256 * MinuteField.stride, repeating: 0)
    /// Per minute: live activities by whole percent of bucket left, 101 each.
    private var remaining = ScratchBuffer<Int>(count: 256 * 101, repeating: 0)
    private var minutes = 0
    private let lagMsByLabel: UnsafeMutablePointer<Histogram<UInt64>>
    private var firstThrottleAfterStartMs = BudgetTally.makeHistogram()
    // Lags repeat in runs (a group's activities see the same events at the same times), so
    // they reach the histograms run-length encoded: one record per run, not per update.
    private var runLabel: Int32 = -1
    private var runLagMs: Int64 = 0
    private var runLength: UInt64 = 0
    private var droppedAfterEnd = 0
    private var broadcasts = 0
    private var broadcastDeliveries = 0
    private var droppedAfterLimit = 0
    private var activitiesBegun = 0
    private var activitiesNotStarted = 0
    private var activitiesThrottled = 0
    private var activitiesFrequent = 0
    private var sweptMinutes = 0
    /// The census visits `censusFrom..<begunThrough` only: activities below have all had their
    /// first push and are dead (lives end for good), activities above have had none. Activities begin roughly in
    /// id order in every scenario, so the range is about the live ones.
    private var censusFrom = 0
    private var begunThrough = 0
    private let sampleEvery: Int
    private let limitMs: Int64
    private let windowMs: Int64
    private let plainRatePerMs: Double
    private let frequentRatePerMs: Double
    private let plainBurst: Double
    private let frequentBurst: Double
    private let startRatePerMs: Double
    /// 100 / burst: a bucket's level in percent is a multiplication away.
    private let plainPercent: Double
    private let frequentPercent: Double
    private static let tolerance = 1e-9
    /// Mixed into the seed for the frequent-updates choice, so it is independent of the
    /// scenario's other draws from the same seed.
    private static let frequentOffDomain: UInt64 = 0x6672_6571_7565_6e74

    /// Offsets of a minute's counters in `minuteFields`, each derived from the one before, so
    /// a new priority or outcome moves the rest instead of overlapping them.
    private enum MinuteField {
        /// Pushes by priority index (`BudgetTally.priorities` of them).
        static let pushes = 0
        /// Pushes by outcome, in `BudgetOutcome` order.
        static let outcomes = pushes + BudgetTally.priorities
        static let firstThrottles = outcomes + BudgetOutcome.allCases.count
        static let live = firstThrottles + 1
        static let exhausted = live + 1
        static let stride = exhausted + 1
    }

    /// The memory the model holds per activity (and its device), bytes: what a caller checks a
    /// count against before allocating millions of them.
    public static var bytesPerActivity: Int {
        MemoryLayout<ActivityBudget>.stride + 3 * MemoryLayout<Int64>.stride + MemoryLayout<Double>.stride
            + MemoryLayout<Bool>.stride + MemoryLayout<Double>.stride + MemoryLayout<Int64>.stride
    }

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
        self.labels = labels
        self.sampleEvery = sampleEvery
        let count = activities.count
        states = ScratchBuffer(count: count, repeating: ActivityBudget())
        tokens = ScratchBuffer(count: count, repeating: 0)
        refilledAtMs = ScratchBuffer(count: count, repeating: 0)
        liveUntilMs = ScratchBuffer(count: count, repeating: 0)
        frequent = ScratchBuffer(count: count, repeating: false)
        if parameters.frequentUpdates {
            for index in 0..<count {
                var random = SplitMix64(
                    seed: seed ^ Self.frequentOffDomain,
                    index: UInt64(activities.lowerBound + index)
                )
                frequent[index] = random.nextUnit() >= parameters.frequentOffFraction
            }
        }
        startTokens = ScratchBuffer(count: devices.count, repeating: 0)
        startRefilledAtMs = ScratchBuffer(count: devices.count, repeating: .min)
        outcomes = ScratchBuffer(count: BudgetTally.outcomeSlots(labels: labels), repeating: 0)
        lagMsByLabel = .allocate(capacity: labels.names.count)
        lagMsByLabel.initialize(repeating: BudgetTally.makeHistogram(), count: labels.names.count)
        limitMs = Int64((parameters.activeLimitSeconds * 1000).rounded())
        windowMs = Int64((parameters.lowPriorityIntervalSeconds * 1000).rounded())
        plainBurst = parameters.burst
        frequentBurst = parameters.burst * parameters.frequentFactor
        plainRatePerMs = parameters.perHour / 3_600_000
        frequentRatePerMs = parameters.perHour * parameters.frequentFactor / 3_600_000
        startRatePerMs = parameters.startPerHour / 3_600_000
        plainPercent = 100 / plainBurst
        frequentPercent = 100 / frequentBurst
    }

    deinit {
        lagMsByLabel.deinitialize(count: labels.names.count)
        lagMsByLabel.deallocate()
    }

    /// Applies one accepted push. Pushes must come in non-decreasing `timeMs`, with activity
    /// and device inside the model's ranges.
    public mutating func receive(_ push: BudgetPush) {
        let time = push.timeMs
        advance(to: time)
        let index = push.activity - activities.lowerBound
        precondition(index >= 0 && index < states.count, "activity \(push.activity) is not in \(activities)")
        let minute = Int(time / 60_000)
        minuteFields[minute * MinuteField.stride + MinuteField.pushes + BudgetTally.priorityIndex(push.priority)] += 1
        if states[index].status == .waiting, begins(index, with: push, at: time) { return }
        closeWindow(index, ifDueBy: time)
        switch states[index].status {
        case .notStarted:
            count(.notStarted, index, push)
            return
        case .ended:
            droppedAfterEnd += 1
            count(.droppedEnded, index, push)
            return
        case .live, .waiting:
            break
        }
        if time >= states[index].beganAtMs + limitMs {
            droppedAfterLimit += 1
            count(.droppedEnded, index, push)
            return
        }
        if push.timestampSeconds < states[index].newestShownTimestamp {
            count(.droppedStale, index, push)
            return
        }
        appendUnresolved(index, push)
        if push.phase == .end { states[index].endReceived = true }
        if BudgetTally.priorityIndex(push.priority) == 0 {
            spendToken(index, on: push, at: time, minute: minute)
        } else {
            holdForWindow(index, push, at: time)
        }
    }

    /// The first push to a waiting activity: a start the device's start budget refuses leaves
    /// it never started; otherwise it begins, and a start is shown at once.
    /// - Returns: whether the push is fully accounted for (a start, shown or refused).
    @inline(__always)
    private mutating func begins(_ index: Int, with push: BudgetPush, at time: Int64) -> Bool {
        states[index].device = push.device
        if push.phase == .start {
            guard takeStart(device: push.device - devices.lowerBound, at: time) else {
                states[index].status = .notStarted
                activitiesNotStarted += 1
                count(.startThrottled, index, push)
                return true
            }
        }
        begin(index, at: time)
        guard push.phase == .start else { return false }
        appendUnresolved(index, push)
        show(index, at: time, sentAtMs: time, timestamp: push.timestampSeconds)
        count(.shown, index, push)
        return true
    }

    /// A priority-10 push: shown if the activity's bucket has a token, throttled otherwise (the
    /// first throttle of an activity counted in its minute).
    @inline(__always)
    private mutating func spendToken(_ index: Int, on push: BudgetPush, at time: Int64, minute: Int) {
        if takeToken(index, at: time) {
            coalescePending(index)
            show(index, at: time, sentAtMs: time, timestamp: push.timestampSeconds)
            count(.shown, index, push)
            if push.phase == .end { end(index, at: time) }
            return
        }
        if states[index].firstThrottleMs < 0 {
            states[index].firstThrottleMs = time
            activitiesThrottled += 1
            minuteFields[minute * MinuteField.stride + MinuteField.firstThrottles] += 1
            firstThrottleAfterStartMs.record(UInt64(time - states[index].beganAtMs))
        }
        count(.throttled, index, push)
    }

    /// A low-priority push: held until its window closes, replacing (coalescing) one pending.
    @inline(__always)
    private mutating func holdForWindow(_ index: Int, _ push: BudgetPush, at time: Int64) {
        if states[index].windowEndMs < 0 {
            states[index].windowEndMs = time + windowMs
        } else {
            coalescePending(index)
        }
        states[index].pendingSendMs = time
        states[index].pendingTimestamp = push.timestampSeconds
        states[index].pendingLabel = Int32(push.label)
        states[index].pendingPriority = Int32(push.priority)
        states[index].pendingIsEnd = push.phase == .end
    }

    /// Counts a broadcast whose `deliveries` subscribers of this model were each handed to
    /// `receive` as a push of their own: their devices spend budget one by one, and the
    /// broadcast itself counts once, where `sent` (a group split between models counts in one).
    public mutating func countBroadcast(deliveries: Int, sent: Bool) {
        broadcastDeliveries += deliveries
        if sent { broadcasts += 1 }
    }

    /// Closes every open window, counts updates never covered by a shown state, takes the
    /// last minute's bucket census, and returns the tally.
    public consuming func finish() -> BudgetTally {
        while sweptMinutes < minutes {
            census(minute: sweptMinutes)
            sweptMinutes += 1
        }
        var tally = BudgetTally(labels: labels)
        for index in 0..<states.count {
            closeWindow(index, ifDueBy: .max)
            var entry = states[index].unresolvedHead
            while entry >= 0 {
                tally.neverShownByLabel[Int(unresolved[entry].label)] += 1
                states[index].neverShown += 1
                entry = unresolved.remove(entry)
            }
            states[index].unresolvedHead = -1
            states[index].unresolvedTail = -1
            if states[index].endReceived && states[index].status != .ended { tally.endsNotShown += 1 }
            let activity = activities.lowerBound + index
            if sampleEvery > 0 && activity % sampleEvery == 0 { tally.sampled.append(record(index)) }
        }
        flushLagRun()
        tally.outcomes = outcomes.array(prefix: outcomes.count)
        tally.minutes = (0..<minutes).map { minute in
            let base = minute * MinuteField.stride
            var row = BudgetMinute()
            row.pushesP10 = minuteFields[base + MinuteField.pushes]
            row.pushesP5 = minuteFields[base + MinuteField.pushes + 1]
            row.pushesP1 = minuteFields[base + MinuteField.pushes + 2]
            row.outcomes = (0..<BudgetOutcome.allCases.count).map { minuteFields[base + MinuteField.outcomes + $0] }
            row.live = minuteFields[base + MinuteField.live]
            row.exhausted = minuteFields[base + MinuteField.exhausted]
            row.firstThrottles = minuteFields[base + MinuteField.firstThrottles]
            return row
        }
        tally.remainingPercent = remaining.array(prefix: minutes * 101)
        for label in labels.names.indices {
            tally.lagMsByLabel[label] = lagMsByLabel[label]
        }
        tally.firstThrottleAfterStartMs = firstThrottleAfterStartMs
        tally.droppedAfterEnd = droppedAfterEnd
        tally.broadcasts = broadcasts
        tally.broadcastDeliveries = broadcastDeliveries
        tally.droppedAfterLimit = droppedAfterLimit
        tally.activitiesBegun = activitiesBegun
        tally.activitiesNotStarted = activitiesNotStarted
        tally.activitiesThrottled = activitiesThrottled
        tally.activitiesFrequent = activitiesFrequent
        return tally
    }

    // MARK: - Rules

    /// The activity's `end` was shown at `time`: it leaves the screen, and later pushes are
    /// dropped. A throttled or coalesced `end` does not come here.
    private mutating func end(_ index: Int, at time: Int64) {
        states[index].status = .ended
        liveUntilMs[index] = min(liveUntilMs[index], time)
    }

    private mutating func begin(_ index: Int, at time: Int64) {
        states[index].status = .live
        states[index].beganAtMs = time
        tokens[index] = frequent[index] ? frequentBurst : plainBurst
        refilledAtMs[index] = time
        liveUntilMs[index] = time + limitMs
        begunThrough = max(begunThrough, index + 1)
        activitiesBegun += 1
        if frequent[index] { activitiesFrequent += 1 }
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
        precondition(
            device >= 0 && device < startTokens.count,
            "device \(device + devices.lowerBound) is not in \(devices)"
        )
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
        let windowEnd = states[index].windowEndMs
        guard windowEnd >= 0 && windowEnd <= time else { return }
        states[index].windowEndMs = -1
        let isEnd = states[index].pendingIsEnd
        if let sent = settlePending(index, as: .shown) {
            show(index, at: windowEnd, sentAtMs: sent, timestamp: states[index].pendingTimestamp)
            if isEnd { end(index, at: windowEnd) }
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
        states[index].pendingIsEnd = false
        count(
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
        while entry >= 0 && unresolved[entry].sendMs <= sentAtMs {
            let lag = time - unresolved[entry].sendMs
            recordLag(lag, label: unresolved[entry].label)
            if lag > states[index].maxLagMs { states[index].maxLagMs = lag }
            entry = unresolved.remove(entry)
        }
        states[index].unresolvedHead = entry
        if entry < 0 { states[index].unresolvedTail = -1 }
    }

    @inline(__always)
    private mutating func recordLag(_ lag: Int64, label: Int32) {
        if label == runLabel && lag == runLagMs {
            runLength += 1
            return
        }
        flushLagRun()
        runLabel = label
        runLagMs = lag
        runLength = 1
    }

    private mutating func flushLagRun() {
        guard runLength > 0 else { return }
        lagMsByLabel[Int(runLabel)].record(UInt64(runLagMs), count: runLength)
        runLength = 0
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
    private mutating func count(_ outcome: BudgetOutcome, label: Int, priority: Int, sentAtMs: Int64) {
        let slot = BudgetTally.outcomeSlot(
            label: label,
            priorityIndex: BudgetTally.priorityIndex(priority),
            outcome: outcome.ordinal
        )
        outcomes[slot] += 1
        minuteFields[Int(sentAtMs / 60_000) * MinuteField.stride + MinuteField.outcomes + outcome.ordinal] += 1
    }

    @inline(__always)
    private mutating func count(_ outcome: BudgetOutcome, _ index: Int, _ push: BudgetPush) {
        count(outcome, label: push.label, priority: push.priority, sentAtMs: push.timeMs)
        states[index].counts[outcome] += 1
    }

    // MARK: - Minutes

    /// Takes the bucket census at the end of every minute that ended by `time`.
    private mutating func advance(to time: Int64) {
        let minute = Int(time / 60_000)
        if minute >= minutes {
            minutes = minute + 1
            minuteFields.grow(toAtLeast: minutes * MinuteField.stride)
            remaining.grow(toAtLeast: minutes * 101)
        }
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
        while censusFrom < states.count && states[censusFrom].status != .waiting && liveUntilMs[censusFrom] <= end {
            censusFrom += 1
        }
        for index in censusFrom..<max(censusFrom, begunThrough) where liveUntilMs[index] > end {
            let available = tokens(index, at: end)
            let percent = min(100, max(0, Int(available * (frequent[index] ? frequentPercent : plainPercent))))
            remaining[base + percent] += 1
            live += 1
            if available < 1 - Self.tolerance { exhausted += 1 }
        }
        minuteFields[minute * MinuteField.stride + MinuteField.live] = live
        minuteFields[minute * MinuteField.stride + MinuteField.exhausted] = exhausted
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
