import Basics
import Workload

/// The rate an open loop offered: the pushes its schedule intended in each interval of the run's
/// time series, per second, beside the rate it achieved. A sender that keeps up sends what was
/// offered; one that falls behind sends less, and the gap is the schedule lag.
///
/// It is the schedule's own arithmetic, not a measurement: a rate's integral, or the scenario's
/// due times on its clock, capped by `--requests` and `--duration` as the workers are.
public enum OfferedRate {
    /// The most pushes of a scenario walked for its due times after a run (about a second's
    /// work); a larger one's offered rate is not drawn.
    public static let mostScenarioPushes = 5_000_000

    /// Pushes intended per second in each of `intervals` intervals of `resolutionSeconds`, from
    /// the measurement's start (after the warmup), for this shard; `nil` for a closed loop, a
    /// burst (every push due at once) and a scenario too large to walk.
    public static func perSecond(
        _ configuration: LoadConfiguration,
        resolutionSeconds: Double,
        intervals: Int
    ) -> [Double]? {
        guard intervals > 0, resolutionSeconds > 0 else { return nil }
        let warmup = configuration.warmup.inSeconds
        let cap = configuration.shardRequests.map(Double.init) ?? .infinity
        let end = configuration.duration.map { warmup + $0.inSeconds } ?? .infinity
        switch configuration.pacing {
        case .closedLoop, .burst:
            return nil
        case .rate(let profile):
            let shards = Double(configuration.shard.count)
            func due(by seconds: Double) -> Double {
                min(cap, Double(profile.pushesDue(bySeconds: min(seconds, end))) / shards)
            }
            return (0..<intervals).map { index in
                let from = warmup + Double(index) * resolutionSeconds
                return (due(by: from + resolutionSeconds) - due(by: from)) / resolutionSeconds
            }
        case .scenarioTime(let scale):
            guard let stream = try? ScenarioStream(configuration.scenario, activities: configuration.shardActivities)
            else { return nil }
            var counts = [Double](repeating: 0, count: intervals)
            var taken = 0.0
            for event in stream where event.sentHere {
                guard taken < cap else { break }
                taken += 1
                guard taken <= Double(mostScenarioPushes) else { return nil }
                let seconds = Double(event.timeMs) / 1000 / scale
                guard seconds < end else { continue }
                let index = Int(((seconds - warmup) / resolutionSeconds).rounded(.down))
                if (0..<intervals).contains(index) { counts[index] += 1 }
            }
            return counts.map { $0 / resolutionSeconds }
        }
    }
}
