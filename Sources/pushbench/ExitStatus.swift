/// The exit statuses `pushbench run` ends with beyond 0 (success) and 1 (bad input, or a
/// failure to start or to write): what a script or CI job can branch on.
enum ExitStatus {
    /// The run ended, its report was written, and no push succeeded.
    static let nothingSucceeded: Int32 = 3

    /// A run stopped by `signal` (Ctrl-C's SIGINT: 130, SIGTERM: 143), the shell's convention.
    static func interrupted(by signal: Int32) -> Int32 { 128 + signal }
}
