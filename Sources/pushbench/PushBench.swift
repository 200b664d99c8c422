import ArgumentParser
import Basics
import Foundation
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
              pushbench run
              pushbench profile -- python3 my_sender.py
              pushbench mock --port 2197 --cert-out mock.pem

            With no arguments, `pushbench run` starts an embedded mock APNs on loopback (HTTP/2 over TLS), \
            sends a football final's 107,000 Live Activity pushes signed with a fresh ES256 key, and writes a \
            report to Reports/<run-id>/.

            Exit statuses, the same for every command: 0 success; 1 a gate failed (compare, --threshold); \
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
        InterruptTrap.exitOnSignal()
        do {
            try checkHelpTopic()
            var command = try parseAsRoot(
                EnvironmentArguments.applied(
                    to: Array(CommandLine.arguments.dropFirst()),
                    environment: ProcessInfo.processInfo.environment
                )
            )
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = negativeValue(explaining: TimeSpan.explain(message(for: error)))
            let names = configuration.subcommands.map { $0._commandName }
            let subcommand = CommandLine.arguments.dropFirst().first { names.contains($0) }
            let command = (["pushbench"] + (subcommand.map { [$0] } ?? [])).joined(separator: " ")
            if code == .success, case let help = fullMessage(for: error), help.contains("USAGE:") {
                Console.out(HelpScreen.brief(help, command: command))
                Glibc.exit(0)
            }
            if code == .success || message.isEmpty {
                exit(withError: error)  // --version, or an exit status with nothing to say
            }
            let help = command + " --help"
            Console.failure("pushbench: error: \(message) (see '\(help)')")
            Glibc.exit(status(of: error, parserCode: code.rawValue))
        }
    }

    /// The parser reads `--rate -5` as `--rate` with no value and `-5` as an unknown flag, and
    /// says "Missing value"; this says what was wrong instead: no option takes a negative number.
    private static func negativeValue(explaining message: String) -> String {
        guard message.hasPrefix("Missing value for '--") else { return message }
        let arguments = Array(CommandLine.arguments.dropFirst())
        for (option, value) in zip(arguments, arguments.dropFirst())
        where option.hasPrefix("--") && value.count > 1 && value.hasPrefix("-") && Double(value) != nil {
            return "\(option) \(value): a negative number is never taken; give a value of 0 or more"
        }
        return message
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
