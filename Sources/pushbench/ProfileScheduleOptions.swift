import ArgumentParser
import ArrivalMatching
import Profiling

/// What only a profile's schedule has beyond `ScheduleOptions`: when `at_s` 0 comes after the
/// sender starts, and how long its processes have to go once asked to.
struct ProfileScheduleOptions: ParsableArguments {
    @Option(help: "How long after the sender starts at_s 0 comes: time to start up and connect.")
    var lead = TimeSpan(seconds: 2)

    @Option(
        help:
            "How long the sender's processes have between SIGTERM and SIGKILL; at most 0.8s after Ctrl-C or SIGTERM to profile, which ends within 2 s."
    )
    var grace = TimeSpan(seconds: 5)
}

extension ScheduleOptions {
    /// The due times a profile hands its sender: the scenario's clock (`--time-scale`), an even
    /// rate (`--rate`), or all at once.
    var eventTiming: EventTiming {
        if let timeScale { return .scenarioTime(scale: timeScale) }
        if let rate { return .constantRate(perSecond: rate) }
        return .allAtOnce
    }
}
