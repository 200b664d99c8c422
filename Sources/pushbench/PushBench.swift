import ArgumentParser

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
            sends 100,000 Live Activity updates signed with a fresh ES256 key, and writes a report \
            to Reports/<run-id>/.
            """,
        subcommands: [
            RunCommand.self, MockCommand.self, TokensCommand.self, ScenariosCommand.self, BudgetCommand.self,
            HotpathCommand.self, CompareCommand.self, MergeCommand.self, PlanCommand.self,
        ]
    )

    /// Runs the command, and reports every failure as one line on stderr with a non-zero exit:
    /// a usage dump or a stack trace helps nobody who mistyped an option or a path.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = message(for: error)
            if code == .success || message.isEmpty {
                exit(withError: error)  // --help, or an exit status with nothing to say
            }
            let names = configuration.subcommands.map { $0._commandName }
            let subcommand = CommandLine.arguments.dropFirst().first { names.contains($0) }
            let help = (["pushbench"] + (subcommand.map { [$0] } ?? []) + ["--help"]).joined(separator: " ")
            Console.err("pushbench: error: \(message) (see '\(help)')")
            // compare is a CI gate: 1 means a regression, so any bad input is 2.
            if subcommand == CompareCommand._commandName { Glibc.exit(2) }
            Glibc.exit(code.rawValue == 0 ? 1 : code.rawValue)
        }
    }
}
