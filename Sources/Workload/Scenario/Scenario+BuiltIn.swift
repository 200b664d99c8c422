extension Scenario {
    /// One scenario per kind, named after it, and a final started by its fans' apps: the
    /// shapes that hurt real senders.
    public static let builtIn: [Scenario] = [
        Scenario(
            name: "football",
            description: "a final: every activity follows one match, so each goal fans out to all of them at once",
            cohorts: [Cohort(kind: .football, activities: 100_000, groups: 1, rotateFraction: 0.02)]
        ),
        Scenario(
            name: "football-local",
            description:
                "a final whose fans' apps start the activity themselves (no push-to-start) as they open the match, then report its token: what a service that learns each token from the app sees",
            cohorts: [Cohort(kind: .football, activities: 100_000, groups: 1, pushToStart: false)]
        ),
        Scenario(
            name: "delivery",
            description: "food deliveries, each its own activity, starting evenly over 12 hours",
            cohorts: [Cohort(kind: .delivery, activities: 100_000, distribution: .uniform, spreadSeconds: 12 * 3600)]
        ),
        Scenario(
            name: "rideshare",
            description: "rides, each its own activity, starting evenly over 12 hours; position ticks every 5-10 s",
            cohorts: [Cohort(kind: .rideshare, activities: 100_000, distribution: .uniform, spreadSeconds: 12 * 3600)]
        ),
        Scenario(
            name: "upload",
            description: "file uploads starting evenly over an hour, progress every second",
            cohorts: [Cohort(kind: .upload, activities: 100_000, distribution: .uniform, spreadSeconds: 3600)]
        ),
        Scenario(
            name: "flash-sale",
            description: "one flash sale followed by every activity: a 30-minute countdown, then stock until sold out",
            cohorts: [Cohort(kind: .flashSale, activities: 100_000, groups: 1)]
        ),
    ]

    /// The built-in scenario called `name`.
    /// - Throws: `WorkloadError` listing the built-in names.
    public static func builtIn(named name: String) throws -> Scenario {
        guard let scenario = builtIn.first(where: { $0.name == name }) else {
            throw WorkloadError(
                "no built-in scenario '\(name)'; built-in: \(builtIn.map(\.name).joined(separator: ", "))"
            )
        }
        return scenario
    }

    /// The same scenario with `activities` activities, cohorts scaled in proportion (each keeps
    /// at least one) and group counts scaled with them where every activity is its own group.
    public func scaled(toActivities activities: Int) -> Scenario {
        var copy = self
        let total = self.activities
        for index in copy.cohorts.indices {
            let cohort = copy.cohorts[index]
            let scaled = max(1, Int((Double(cohort.activities) * Double(activities) / Double(total)).rounded()))
            copy.cohorts[index].activities = scaled
            copy.cohorts[index].groups = cohort.groups == cohort.activities ? scaled : min(cohort.groups, scaled)
        }
        return copy
    }
}
