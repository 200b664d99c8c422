import ArgumentParser
import Reports
import Transport
import Wire
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// The `pushbench` command line: thin wiring of the library targets.
@main
struct PushBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushbench",
        abstract: "Load-test and measure the sender side of iOS Live Activity pushes over APNs.",
        discussion: """
            With no arguments, `pushbench run` starts an embedded mock APNs on loopback (HTTP/2 over TLS), \
            sends a football final's 107,000 Live Activity pushes signed with a fresh ES256 key, and writes a \
            report to Reports/<run-id>/.

            Exit statuses, the same for every command: 0 success; 1 a gate failed (compare); \
            2 bad input (a missing, folder or malformed file, an unwritable output path, a count too large for \
            memory); 3 a run in which no push succeeded; 4 a failure while working (the mock could not start, a \
            report could not be written, or an error no check foresaw); 5 a merge --partial of part of a run; 64 a \
            malformed command line; 130 and 143 after Ctrl-C and SIGTERM.
            """,
        version: build.text,
        subcommands: [
            RunCommand.self, ProfileCommand.self, MockCommand.self, TokensCommand.self, ScenariosCommand.self,
            BudgetCommand.self,
            HotpathCommand.self, CompareCommand.self, MergeCommand.self, PlanCommand.self,
        ]
    )

    /// This binary: its version, commit and libraries (`--version`, and `build` in summaries).
    static let build = BuildDescription(
        version: BuildInfo.version,
        commit: BuildInfo.commit
    )

    /// Runs the command, and reports every failure as one line on stderr with the exit status
    /// of `ExitStatus`'s table: a usage dump or a stack trace helps nobody who mistyped an
    /// option or a path.
    static func main() {
        // Before anything can touch OpenSSL: it takes an allocator only before its first allocation.
        OpenSSLMemory.useThreadPools()
        do {
            try checkHelpTopic()
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = TimeSpan.explain(message(for: error))
            if code == .success || message.isEmpty {
                exit(withError: error)  // --help, --version, or an exit status with nothing to say
            }
            let names = configuration.subcommands.map { $0._commandName }
            let subcommand = CommandLine.arguments.dropFirst().first { names.contains($0) }
            let help = (["pushbench"] + (subcommand.map { [$0] } ?? []) + ["--help"]).joined(separator: " ")
            Console.err("pushbench: error: \(message) (see '\(help)')")
            Glibc.exit(status(of: error, parserCode: code.rawValue))
        }
    }

    /// `pushbench help NAME` for a NAME that is no command: the parser would print the general
    /// help and succeed, and a script would never learn it asked for nothing.
    private static func checkHelpTopic() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == "help", let topic = arguments.dropFirst().first else { return }
        let names = configuration.subcommands.map { $0._commandName }
        guard names.contains(topic) || topic.hasPrefix("-") else {
            throw ValidationError("no command '\(topic)'; the commands are \(names.joined(separator: ", "))")
        }
    }

    /// The exit status of a failure: its own when it carries one, usage for the parser's
    /// complaints, and a failure while working for anything else: an error no one foresaw is not
    /// the user's bad input.
    private static func status(of error: Error, parserCode: Int32) -> Int32 {
        switch error {
        case let error as StatusCarryingError: error.exitStatus
        case let error as ExitCode: error.rawValue
        default: parserCode == ExitCode.validationFailure.rawValue ? ExitStatus.usage : ExitStatus.runtimeFailure
        }
    }
}
