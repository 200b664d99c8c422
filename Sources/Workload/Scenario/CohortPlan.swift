/// Where a cohort's activities and groups sit in the scenario, and which group is admitted next.
struct CohortPlan: Sendable {
    let placement: Scenario.CohortPlacement
    let seed: UInt64
    var index: Int { placement.index }
    var cohort: Scenario.Cohort { placement.cohort }
    var firstGroup: Int { placement.firstGroup }
    private(set) var nextGroup = 0
    /// When the next group to admit begins, or `nil` when all are admitted; kept, not
    /// recomputed, because the stream asks before every event.
    private(set) var nextGroupStartMs: Int64?

    init(_ placement: Scenario.CohortPlacement, seed: UInt64) {
        self.placement = placement
        self.seed = seed
        nextGroupStartMs = groupStart(0, seed: seed)
    }

    /// When group `group` begins, ms: stratified over the spread, so start times rise with the
    /// group's number and groups can be admitted in order without sorting.
    func groupStart(_ group: Int, seed: UInt64) -> Int64 {
        let at = cohort.atSeconds * 1000
        guard cohort.distribution == .uniform, cohort.spreadSeconds > 0 else { return at }
        var random = SplitMix64(seed: seed ^ 0x6752_4F55_5053_5441, index: UInt64(firstGroup + group))
        let position = (Double(group) + random.nextUnit()) / Double(cohort.groups)
        return at + Int64(position * Double(cohort.spreadSeconds * 1000))
    }

    /// The cursor of the next group, limited to `shardRange`; `nil` when the group has no
    /// activity in the shard. Either way the group counts as admitted.
    mutating func admitNext(_ scenario: Scenario, shardRange: Range<Int>) -> GroupCursor? {
        let group = nextGroup
        nextGroup += 1
        nextGroupStartMs = nextGroup < cohort.groups ? groupStart(nextGroup, seed: seed) : nil
        let members = placement.members(ofGroup: group)
        let inShard = members.clamped(to: shardRange)
        guard !inShard.isEmpty else { return nil }
        return GroupCursor(
            plan: self,
            group: group,
            members: members,
            inShard: inShard,
            startMs: groupStart(group, seed: scenario.seed),
            scenario: scenario
        )
    }
}
