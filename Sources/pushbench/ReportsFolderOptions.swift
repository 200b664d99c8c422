import ArgumentParser
import Foundation

/// Where a command writes its report folder: `--reports-dir DIR`, the parent of `DIR/<run-id>/`,
/// or `--run-dir DIR`, the folder itself, for a script that must know it before the run. One
/// group, so `run`, `profile` and `budget` take it, and check it, the same way.
struct ReportsFolderOptions: ParsableArguments {
    @Option(name: .customLong("reports-dir"), help: "Folder the report folder <run-id>/ is written into.")
    var path = "Reports"

    @Option(
        name: .customLong("run-dir"),
        help: "Write the report into exactly this folder (made if missing), not --reports-dir/<run-id>/."
    )
    var runDirectory: String?

    func validate() throws {
        if runDirectory != nil && path != "Reports" {
            throw ValidationError("--run-dir is the report folder itself; give it or --reports-dir, not both")
        }
    }

    /// The report folder of the run `runID`.
    func folder(runID: String) -> String {
        runDirectory ?? (path as NSString).appendingPathComponent(runID)
    }

    /// Makes sure the folder exists and can be written in, before any work starts.
    func ensure() throws {
        if let runDirectory {
            try OutputPath.ensureFolder(runDirectory, flag: "--run-dir")
        } else {
            try OutputPath.ensureFolder(path, flag: "--reports-dir")
        }
    }
}
