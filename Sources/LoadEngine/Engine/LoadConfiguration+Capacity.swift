import Workload

extension LoadConfiguration {
    /// How many pushes this shard can send under `--requests` when nothing stops it early:
    /// each worker's sent events (with real tokens, starts are not sent), up to its share of
    /// the cap; `nil` without a cap. Fewer than `shardRequests` means the scenario runs out
    /// first, and a figure per push worked out from the cap would be wrong.
    ///
    /// Counting stops at each worker's share, so checking costs at most the cap's events of
    /// the scenario's stream (about 0.1 µs each), not the whole scenario.
    /// - Throws: `WorkloadError` when the scenario is invalid.
    public func pushesHeld() throws -> Int? {
        guard let cap = shardRequests else { return nil }
        let source = ScenarioPushSource(scenario: scenario, realTokens: realTokens)
        let shares = workerActivities
        var held = 0
        for (worker, activities) in shares.enumerated() {
            let workerCap = LoadWorker.share(of: cap, worker: worker, of: shares.count)
            var events = try RunEvents(scenario, activities: activities, pacing: pacing)
            var count = 0
            while count < workerCap, let event = events.next() {
                if source.sends(event) { count += 1 }
            }
            held += count
        }
        return held
    }
}
