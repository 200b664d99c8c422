extension Scenario {
    /// Where a cohort sits in the scenario: its activities and the id of its first group, so a
    /// group's members are found without walking the cohorts before it again.
    struct CohortPlacement {
        /// The cohort's index in `cohorts`.
        let index: Int
        let cohort: Cohort
        /// Its activities, scenario-wide ids.
        let activities: Range<Int>
        /// The scenario-wide id of its group 0.
        let firstGroup: Int

        /// The activities of its group `group` (0-based in the cohort), scenario-wide ids.
        func members(ofGroup group: Int) -> Range<Int> {
            let local = Shard.partition(group, of: cohort.groups, total: cohort.activities)
            return (activities.lowerBound + local.lowerBound)..<(activities.lowerBound + local.upperBound)
        }

        /// Its group (0-based) that holds `activity`, one of its activities.
        func group(containing activity: Int) -> Int {
            let local = activity - activities.lowerBound
            var group = min(cohort.groups - 1, local * cohort.groups / cohort.activities)
            while members(ofGroup: group).lowerBound > activity { group -= 1 }
            while members(ofGroup: group).upperBound <= activity { group += 1 }
            return group
        }
    }

    /// Every cohort's placement, in order.
    var placements: [CohortPlacement] {
        var first = 0
        var firstGroup = 0
        return cohorts.enumerated().map { index, cohort in
            defer {
                first += cohort.activities
                firstGroup += cohort.groups
            }
            return CohortPlacement(
                index: index,
                cohort: cohort,
                activities: first..<(first + cohort.activities),
                firstGroup: firstGroup
            )
        }
    }

    /// The fan-out group of a broadcast cohort that holds `activity`, as its group id across
    /// the scenario and its activities; `nil` for an activity updated per token. Such a group
    /// is sent by one worker, so the engine keeps it whole.
    public func broadcastGroup(containing activity: Int) -> (group: Int, activities: Range<Int>)? {
        guard let found = group(containing: activity), cohorts[found.cohort].delivery == .broadcast else { return nil }
        return (found.group, found.activities)
    }

    /// The fan-out group that holds `activity`: its id across the scenario, its activities and
    /// its cohort; `nil` for an activity outside the scenario.
    public func group(containing activity: Int) -> (group: Int, activities: Range<Int>, cohort: Int)? {
        guard let placement = placements.first(where: { $0.activities.contains(activity) }) else { return nil }
        let group = placement.group(containing: activity)
        return (placement.firstGroup + group, placement.members(ofGroup: group), placement.index)
    }

    /// The fan-out groups of broadcast cohorts with activities in `activities`: what a run (or a
    /// shard of it) needs a channel for, with the cohort whose channel settings apply.
    public func broadcastGroups(in activities: Range<Int>) -> [(group: Int, cohort: Int)] {
        placements.filter { $0.cohort.delivery == .broadcast && $0.activities.overlaps(activities) }.flatMap {
            placement in
            (0..<placement.cohort.groups).filter { placement.members(ofGroup: $0).overlaps(activities) }.map {
                (placement.firstGroup + $0, placement.index)
            }
        }
    }
}
