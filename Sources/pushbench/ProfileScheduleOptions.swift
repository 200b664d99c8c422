import ArgumentParser
import ArrivalMatching
import Profiling

/// What only a profile's schedule has beyond `PacingOptions`: when `at_s` 0 comes after the
/// sender starts, and how long its processes have to go once asked to.
struct ProfileScheduleOptions: ParsableArguments {
    @Option(help: "How long after the sender starts at_s 0 comes: time to start up and connect.")
    var lead = TimeSpan(seconds: 2)

    @Option(help: "How long the sender's processes have between SIGTERM and SIGKILL.")
    var grace = TimeSpan(seconds: 5)
}

extension PacingOptions {
    /// A profile hands its sender fixed due times: the scenario's clock (`--time-scale`), an even
    /// rate (`--rate`), or all at once; a rate that changes, a burst and a warmup pace a run.
    func checkProfileSchedule() throws {
        if rateProfile != nil || burst != nil {
            throw ValidationError(
                "--rate-profile and --burst pace a run; a profile hands its sender due times: give --rate or --time-scale"
            )
        }
        if warmup.nanoseconds > 0 {
            throw ValidationError("--warmup keeps a run's first pushes out of its figures; a profile counts them all")
        }
    }

    /// The due times a profile hands its sender.
    var eventTiming: EventTiming {
        if let timeScale { return .scenarioTime(scale: timeScale) }
        if let rate { return .constantRate(perSecond: rate) }
        return .allAtOnce
    }
}
