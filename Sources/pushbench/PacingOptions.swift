import ArgumentParser
import Foundation
import LoadEngine
import Workload

/// When a scenario's pushes are due and how long a command sends them: closed loop by default,
/// an even rate, or the scenario's clock. `run` and `profile` share it; `run` adds the shapes
/// only a run has (`PacingOptions`).
struct ScheduleOptions: ParsableArguments {
    @Option(
        help:
            "Stop after this long (30s, 5m): a run stops sending and still awaits the answers in flight; a profile ends its sender (SIGTERM, then SIGKILL after --grace)."
    )
    var duration: TimeSpan?

    @Option(
        help:
            "Open loop at this many pushes per second (default: closed loop, as fast as streams free up, refilled a batch of an eighth of them at a time, held at most 100 µs; a profile's sender gets all its pushes due at once)."
    )
    var rate: Double?

    @Option(
        name: .customLong("time-scale"),
        help: "Open loop on the scenario's clock, this many times faster (60: a simulated minute per second)."
    )
    var timeScale: Double?

    func validate() throws {
        if let duration, duration.nanoseconds == 0 { throw ValidationError("--duration 0: must be longer than 0") }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be a positive number") }
        if let timeScale, !(timeScale > 0 && timeScale.isFinite) {
            throw ValidationError("--time-scale must be a positive number")
        }
        if rate != nil && timeScale != nil {
            throw ValidationError("--rate and --time-scale are ways to pace pushes; give one")
        }
    }
}

/// How a run paces its pushes and how long it lasts: the schedule a profile shares
/// (`ScheduleOptions`), and the open loops only a run has (a rate profile, a burst) with its
/// warmup, each with its intended send times.
struct PacingOptions: ParsableArguments {
    @OptionGroup var schedule: ScheduleOptions

    @Option(
        help:
            "How long at the start pushes are sent but kept out of the figures, counted apart as the warmup, such as 10s."
    )
    var warmup = TimeSpan(seconds: 0)

    @Option(
        name: .customLong("rate-profile"),
        help: ArgumentHelp(
            "Open loop at a rate that changes: TIME:RATE,... (straight lines between points) or a file of them.",
            discussion: """
                0:100,60s:2000 ramps from 100/s to 2000/s over a minute, then holds; \
                0:500,30s:500,30s:1000,1m:1000,1m:0 is two 30-second steps, then stops. Each time but 0 takes its \
                unit, as every duration does. A file holds one SECONDS,RATE pair per line (a header line \
                "seconds,rate" is allowed).
                """
        )
    )
    var rateProfile: String?

    @Option(
        help: ArgumentHelp(
            "Open loop, a burst: one update of this kind (goal, status, ...) to every activity, all due at once.",
            discussion: """
                The goal in the final: latency runs from the burst's start, so p50 and p99 say when half and 99% \
                of the followers had it, and the run's length when the last did.
                """
        )
    )
    var burst: String?

    var duration: TimeSpan? { schedule.duration }
    var rate: Double? { schedule.rate }
    var timeScale: Double? { schedule.timeScale }

    func validate() throws {
        if [rate != nil, rateProfile != nil, timeScale != nil, burst != nil].filter({ $0 }).count > 1 {
            throw ValidationError("--rate, --rate-profile, --time-scale and --burst are ways to pace pushes; give one")
        }
        if let burst, EventKind(rawValue: burst) == nil {
            throw ValidationError(
                "--burst: no event kind '\(burst)'; the kinds are "
                    + EventKind.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        if let duration, warmup.nanoseconds > 0, warmup.nanoseconds >= duration.nanoseconds {
            throw ValidationError(
                "--warmup \(warmup) is not shorter than --duration \(duration): the run would measure nothing after it"
            )
        }
        if burst != nil && warmup.nanoseconds > 0 {
            throw ValidationError("--warmup does not apply to --burst: all of it is due at once")
        }
    }

    /// Whether any pacing option was given.
    var isPaced: Bool { rate != nil || rateProfile != nil || timeScale != nil || burst != nil }

    /// The pacing the options ask for; a bad profile is one clear line, with the line number
    /// when it is a file's.
    func pacing() throws -> Pacing {
        if let timeScale { return .scenarioTime(scale: timeScale) }
        if let burst, let kind = EventKind(rawValue: burst) { return .burst(kind) }
        if let rate { return try .constantRate(perSecond: rate) }
        guard let rateProfile else { return .closedLoop }
        guard FileManager.default.fileExists(atPath: rateProfile) || rateProfile.contains(":") else {
            throw CommandLineError(
                "--rate-profile \(rateProfile): no such file, and not a profile of SECONDS:RATE points either"
            )
        }
        let isFile = FileManager.default.fileExists(atPath: rateProfile)
        let text = isFile ? try InputFile.text(rateProfile, what: "--rate-profile") : rateProfile
        do {
            return .rate(try RateProfile(parsing: text))
        } catch {
            let line = error.line.map { isFile ? ":\($0)" : "" } ?? ""
            throw CommandLineError("--rate-profile \(rateProfile)\(line): \(error.message)")
        }
    }
}
