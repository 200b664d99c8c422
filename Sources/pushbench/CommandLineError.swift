/// A failure the user can act on, printed as one line with no stack trace.
struct CommandLineError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
