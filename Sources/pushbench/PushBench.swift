import ArgumentParser

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
        subcommands: [RunCommand.self, MockCommand.self],
        defaultSubcommand: nil
    )
}
