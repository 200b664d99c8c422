import Budget
import BudgetReports
import Foundation
import Harness
import HotPath
import ProfileReports
import Profiling
import Reports
import SenderDoctor
import Wire

/// `pushbench profile`'s steps around the measurement: the sender checked before anything
/// starts, the profiler its flags describe, and the report of what it measured.
extension ProfileCommand {
    /// A sender that cannot be found is bad input, said before the mock starts or a file is
    /// written.
    func checkCommand(_ command: [String]) throws {
        let program = command[0]
        let found =
            program.contains("/")
            ? FileManager.default.isExecutableFile(atPath: program)
            : ExecutableSearch.onPath(program) != nil
        guard found else {
            throw CommandLineError(
                program.contains("/")
                    ? "\(program): no such executable file"
                    : "\(program): command not found on PATH"
            )
        }
    }

    /// The profiler the flags describe, measuring `subject`.
    func profiler(folder: String, subject: ProfileSubject) throws -> SenderProfiler {
        let signingKey: SenderProfiler.SigningKey
        if let authKey = key.authKey, let keyID = key.keyID, let teamID = key.teamID {
            signingKey = .file(
                path: authKey,
                keyID: keyID,
                teamID: teamID,
                publicKey: try KeyFile.publicHalf(of: authKey)
            )
        } else {
            signingKey = .generated(try ES256PrivateKey(), keyID: "PBPROFILE1", teamID: "PUSHBENCH1")
        }
        var profiler = SenderProfiler(
            subject: subject,
            scenario: try scenario.scenario(defaultActivities: 1000),
            folder: folder,
            mock: try server.configuration(host: "127.0.0.1", port: 0, key: nil),
            signingKey: signingKey,
            requests: limit.requests,
            timing: pace.eventTiming,
            lead: schedule.lead.duration,
            duration: pace.duration?.duration,
            grace: schedule.grace.duration
        )
        profiler.bundleID = app.bundleID
        profiler.samplesStacks = perf.enabled
        profiler.keepsEvents = keepEvents
        profiler.sealing = try sealed.sealing()
        return profiler
    }

    /// Writes the traffic report and the run's report files, and prints the headline; says
    /// whether every `--threshold` held.
    func report(
        _ profile: SenderProfile,
        recording: String,
        profiler: SenderProfiler,
        runID: String,
        folder: String
    ) throws -> Bool {
        let began = ContinuousClock.now
        // One budget model for the screen: the budget line's, which the doctor repeats.
        let budgetReport = try budgetReport(profile, profiler: profiler, runID: runID)
        let practices = trafficReport(profile, recording: recording, folder: folder, budget: budgetReport)
        let trafficPage: String? = practices == nil ? nil : "traffic/report.html"
        var figures = profile.report(
            scenario: profiler.scenario,
            requests: profiler.requests,
            timing: profiler.timing,
            bundleID: profiler.bundleID,
            concurrency: practices.flatMap { doctor in
                doctor.figures.streamsInFlightP90.map { (connections: doctor.figures.connections, streams: $0) }
            }
        )
        figures.practicesVerdict = practices?.verdict
        figures.sender.inFlightP90 = practices?.figures.inFlightP90
        figures.trafficPage = trafficPage
        var context = RunContext(
            runID: runID,
            commandLine: CommandLine.arguments.joined(separator: " "),
            targetDescription: "embedded mock",
            build: PushBench.build
        )
        context.judge = try gate.judge(for: .profile)
        figures.budgetVerdict = budgetReport.map(profile.budgetVerdict)
        context.cpuSampling = profile.cpuSampling
        if let failure = profile.failure {
            Console.failedResult("FAILED: \(failure)")
            for line in profile.stderrTail { Console.failedResult("  sender stderr: \(line)") }
        }
        for line in ProfileHeadline(figures).lines { Console.out("\(line.topic)  \(line.sentence)") }
        if let sampling = profile.cpuSampling { Console.out(PerfOptions.summaryLine(sampling)) }
        let written: ReportWriter.Written
        do {
            written = try ReportWriter.write(
                profile: figures,
                context: context,
                directory: folder,
                budget: budgetReport
            )
        } catch {
            throw CommandLineError.runtime("\(error) (the lines above are complete)")
        }
        let seconds = Double((ContinuousClock.now - began) / .milliseconds(1)) / 1000
        // On stderr with the progress: what the reports cost PushBench, after the run.
        Console.err(String(format: "reports built in %.2f s (the books, the doctor and the pages)", seconds))
        let held = try gate.finish(written, suite: "pushbench profile")
        Console.always("report: \(written.htmlPath)")
        return held
    }

    /// Writes the traffic report of `recording` into `folder`/traffic, with the doctor's findings
    /// (its budget figure `budget`'s); the findings, or `nil` with a warning when it could not.
    private func trafficReport(
        _ profile: SenderProfile,
        recording: String,
        folder: String,
        budget report: BudgetReport?
    ) -> SenderPractices? {
        do {
            return try MockStopReport.writeTraffic(
                of: recording,
                stats: profile.mock,
                streamsAdvertised: server.streams,
                to: (folder as NSString).appendingPathComponent("traffic"),
                deviceDrops: profile.service?.lifecycle?.deviceDrops ?? [:],
                budget: report.map {
                    .modelled(
                        throttledUpdates: $0.result.tally.count(.throttled),
                        model: "\(budget.budgetPreset) preset, the priorities sent, the scenario's clock"
                    )
                } ?? .notModelled
            ).practices
        } catch {
            Console.err("warning: the traffic report could not be written: \(error)")
            return nil
        }
    }

    /// The budget of the events the sender got accepted, or `nil` with `--no-budget`.
    private func budgetReport(_ profile: SenderProfile, profiler: SenderProfiler, runID: String) throws -> BudgetReport?
    {
        guard !budget.noBudget else { return nil }
        return try profile.budgetReport(
            preset: try BudgetParameters.preset(named: budget.budgetPreset),
            profiler: profiler,
            runID: runID,
            commandLine: CommandLine.arguments.joined(separator: " ")
        )
    }

    /// The live line: pushes against events, the sender's CPU and memory.
    static func progressLine(_ progress: ProfileProgress) -> String {
        String(
            format: "%6.1fs  pushes %d of %d events  accepted %d  sender CPU %.0f%%  RSS %.1f MiB%@",
            progress.elapsedSeconds,
            progress.pushes,
            progress.events,
            progress.accepted,
            progress.cpuPercent,
            Double(progress.rssBytes) / 1_048_576,
            progress.ending ? "  (ending the sender)" : ""
        )
    }
}
