import ArgumentParser
import MockAPNs

/// The mock `run` starts when it is given no `--endpoint`: its event-loop threads, its token
/// hygiene, and `mock`'s faults and answer rules under the same names, so a run can meet the
/// same misbehaving server without a second process. (`mock`'s stream and key options are not
/// here: `run`'s `--streams` and `--auth-key` are the client's.)
struct EmbeddedMockOptions: ParsableArguments {
    @Option(name: .customLong("mock-threads"), help: "Event-loop threads of the embedded mock.")
    var threads = 1

    @OptionGroup(title: "Token hygiene of the embedded mock")
    var tokenHygiene: TokenHygieneOptions

    @OptionGroup(title: "Faults and answer rules of the embedded mock")
    var faults: MockFaultOptions

    func validate() throws {
        guard (1...256).contains(threads) else { throw ValidationError("--mock-threads must be 1 to 256") }
    }

    /// Whether anything shapes the embedded mock, which a run toward an endpoint does not start.
    var isSet: Bool { tokenHygiene.isSet || faults.isSet || threads != 1 }

    /// The embedded mock these options describe; the session adds its address and the run's key.
    func configuration() throws -> MockAPNsConfiguration {
        var configuration = MockAPNsConfiguration(tokenHygiene: try tokenHygiene.hygiene(), threads: threads)
        try faults.apply(to: &configuration)
        return configuration
    }
}
