import ArgumentParser

/// Where a command writes its report folder: `--reports-dir DIR`, the parent of `DIR/<run-id>/`.
/// One group, so `run`, `profile` and `budget` take it, and check it, the same way.
struct ReportsFolderOptions: ParsableArguments {
    @Option(name: .customLong("reports-dir"), help: "Folder the report folder is written into.")
    var path = "Reports"

    /// Makes sure the folder exists and can be written in, before any work starts.
    func ensure() throws {
        try OutputPath.ensureFolder(path, flag: "--reports-dir")
    }
}
