import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` into the target it builds: PushBench's version (the `VERSION` file)
/// and the git commit it was built from, so `pushbench --version` and every `summary.json` say
/// what produced them.
///
/// The commit is read again whenever git's HEAD log changes (a commit, a checkout); a tree
/// without git says `unknown`.
@main
struct BuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildInfo.swift")
        let inputs = [".git/logs/HEAD", ".git/HEAD", "VERSION"].map { root.appending(path: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        let script = """
            version=$(cat "$1/VERSION" 2>/dev/null || echo unknown)
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
            printf '%s\\n' \\
              '/// Written at build time by the BuildInfo plugin (Plugins/BuildInfo); not in git.' \\
              'enum BuildInfo {' \\
              "    /// PushBench's version, from the VERSION file." \\
              "    static let version = \\"$version\\"" \\
              '    /// The git commit the binary was built from.' \\
              "    static let commit = \\"$commit\\"" \\
              '}' > "$2"
            """
        return [
            .buildCommand(
                displayName: "Writing BuildInfo.swift (version, commit)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "build-info", root.path, output.path],
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
