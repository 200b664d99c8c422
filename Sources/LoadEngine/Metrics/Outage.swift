/// A stretch of a run in which requests ended but none was answered: every one failed below HTTP
/// or timed out. The target was down or out of reach (a crash, a restart, a network cut), which
/// a reader of the report must see as such, not as a dip in an average.
public struct Outage: Sendable, Equatable {
    /// The first second of the stretch, counted from the run's start.
    public var fromSecond: Int
    /// The second after its last: the stretch covers `[fromSecond, toSecond)`.
    public var toSecond: Int
    /// How long it lasted, whole seconds.
    public var seconds: Int { toSecond - fromSecond }
    /// Requests that failed below HTTP in it.
    public var errored = 0
    /// Requests that timed out in it.
    public var timedOut = 0

    /// Creates an outage of `[fromSecond, toSecond)`.
    public init(fromSecond: Int, toSecond: Int, errored: Int = 0, timedOut: Int = 0) {
        self.fromSecond = fromSecond
        self.toSecond = toSecond
        self.errored = errored
        self.timedOut = timedOut
    }

    /// The outages of a per-second series: runs of consecutive seconds in which requests ended,
    /// none with an answer (`succeeded` and `rejected` both 0). A second in which the target
    /// went down part of the way still had answers, so a stretch starts at the first second
    /// without any.
    public static func spans(in timeline: [SecondSample]) -> [Outage] {
        var outages: [Outage] = []
        for sample in timeline {
            let counts = sample.counts
            let down = counts.completed > 0 && counts.succeeded == 0 && counts.rejected == 0
            guard down else { continue }
            if let last = outages.last, last.toSecond == sample.second {
                outages[outages.count - 1].toSecond = sample.second + 1
                outages[outages.count - 1].errored += counts.errored
                outages[outages.count - 1].timedOut += counts.timedOut
            } else {
                outages.append(
                    Outage(
                        fromSecond: sample.second,
                        toSecond: sample.second + 1,
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
