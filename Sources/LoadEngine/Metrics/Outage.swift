/// A stretch of a run in which requests ended but none was answered: every one failed below HTTP
/// or timed out. The target was down or out of reach (a crash, a restart, a network cut), which
/// a reader of the report must see as such, not as a dip in an average.
public struct Outage: Sendable, Equatable {
    /// Where the stretch starts, seconds since the run's start.
    public var fromSeconds: Double
    /// Where it ends: the stretch covers `[fromSeconds, toSeconds)`.
    public var toSeconds: Double
    /// How long it lasted, seconds.
    public var seconds: Double { toSeconds - fromSeconds }
    /// Requests that failed below HTTP in it.
    public var errored = 0
    /// Requests that timed out in it.
    public var timedOut = 0

    /// Creates an outage of `[fromSeconds, toSeconds)`.
    public init(fromSeconds: Double, toSeconds: Double, errored: Int = 0, timedOut: Int = 0) {
        self.fromSeconds = fromSeconds
        self.toSeconds = toSeconds
        self.errored = errored
        self.timedOut = timedOut
    }

    /// The outages of a time series: runs of consecutive intervals in which requests ended,
    /// none with an answer (`succeeded` and `rejected` both 0). An interval in which the target
    /// went down part of the way still had answers, so a stretch starts at the first interval
    /// without any.
    public static func spans(in timeline: [TimelineSample]) -> [Outage] {
        var outages: [Outage] = []
        for sample in timeline {
            let counts = sample.counts
            let down = counts.completed > 0 && counts.succeeded == 0 && counts.rejected == 0
            guard down else { continue }
            if let last = outages.last, abs(last.toSeconds - sample.startSeconds) < 1e-9 {
                outages[outages.count - 1].toSeconds = sample.endSeconds
                outages[outages.count - 1].errored += counts.errored
                outages[outages.count - 1].timedOut += counts.timedOut
            } else {
                outages.append(
                    Outage(
                        fromSeconds: sample.startSeconds,
                        toSeconds: sample.endSeconds,
                        errored: counts.errored,
                        timedOut: counts.timedOut
                    )
                )
            }
        }
        return outages
    }
}

extension RunResult {
    /// The stretches in which the target answered nothing (`Outage`).
    public var outages: [Outage] { Outage.spans(in: timeline) }
}
