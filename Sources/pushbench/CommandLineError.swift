/// A failure the user can act on, printed as one line with no stack trace, and the exit status
/// it ends the command with (`ExitStatus`).
struct CommandLineError: Error, CustomStringConvertible {
    let description: String
    let status: Int32

    /// Bad input (`ExitStatus.badInput`) unless `status` says otherwise.
    init(_ description: String, status: Int32 = ExitStatus.badInput) {
        self.description = description
        self.status = status
    }

    /// A failure while working, after the input was found good (`ExitStatus.runtimeFailure`).
    static func runtime(_ description: String) -> CommandLineError {
        CommandLineError(description, status: ExitStatus.runtimeFailure)
    }
}
