import LoadEngine

extension RunResult {
    /// What the run's latency is measured from, as every report says it: an open loop's from each
    /// push's intended send time, so time spent waiting for a stream counts (no coordinated
    /// omission); a closed loop's from each push's submission.
    public var latencyOrigin: String {
        configuration.pacing.isOpenLoop
            ? "from each push's intended send time, so waiting for a stream counts" : "from each push's submission"
    }
}
