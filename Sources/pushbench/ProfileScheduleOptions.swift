import ArgumentParser
import Profiling

/// When a profiled sender's pushes are due, and when it is stopped: the schedule it is handed
/// (`at_s` in its events file) and the bounds on watching it.
struct ProfileScheduleOptions: ParsableArguments {
    @Option(
        name: .customLong("time-scale"),
        help: "Due on the scenario's clock, this many times faster (60: a simulated minute a second)."
    )
    var timeScale: Double?

    @Option(
        help:
            "Due evenly at this many pushes a second (default: all due at once, at at_s 0, so the sender sends as fast as it can)."
    )
    var rate: Double?

    @Option(help: "How long after the sender starts at_s 0 comes: time to start up and connect.")
    var lead = TimeSpan(seconds: 2)

    @Option(
        help: "End the sender (SIGTERM, then SIGKILL after --grace) this long after it started, if it has not exited."
    )
    var duration: TimeSpan?

    @Option(help: "How long the sender's processes have between SIGTERM and SIGKILL.")
    var grace = TimeSpan(seconds: 5)

    func validate() throws {
        if timeScale != nil && rate != nil {
            throw ValidationError("--time-scale and --rate are two schedules; give one")
        }
        if let timeScale, !(timeScale > 0 && timeScale.isFinite) {
            throw ValidationError("--time-scale must be a positive number")
        }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be a positive number") }
        if let duration, duration.nanoseconds == 0 { throw ValidationError("--duration 0: must be longer than 0") }
    }

    /// The schedule the options ask for.
    var timing: EventTiming {
        if let timeScale { return .scenarioTime(scale: timeScale) }
        if let rate { return .constantRate(perSecond: rate) }
        return .allAtOnce
    }
}
