/// The exit statuses of every `pushbench` command, one table for all of them (docs/cli.md, "Exit
/// statuses"), so a script or CI job can branch the same way whatever it ran.
enum ExitStatus {
    /// A gate failed: `compare`, or `run --baseline`, found a regression.
    static let gateFailed: Int32 = 1
    /// Bad input: a file that does not exist, is a folder or is malformed, an output path that
    /// cannot be written, a count that would not fit in memory. Checked before work starts.
    static let badInput: Int32 = 2
    /// The run ended, its report was written, and no push succeeded.
    static let nothingSucceeded: Int32 = 3
    /// Something failed while working: the mock could not start, a report could not be written
    /// (what was measured is printed first).
    static let runtimeFailure: Int32 = 4
    /// `merge --partial` wrote the report of part of a run: a shard was missing or interrupted.
    static let partialResult: Int32 = 5
    /// A malformed command line: an unknown option, a value of the wrong type or out of range.
    static let usage: Int32 = 64

    /// A run stopped by `signal` (Ctrl-C's SIGINT: 130, SIGTERM: 143), the shell's convention.
    static func interrupted(by signal: Int32) -> Int32 { 128 + signal }
}
