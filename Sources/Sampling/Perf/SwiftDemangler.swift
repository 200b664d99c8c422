import Foundation

/// Swift's symbol names made readable by the toolchain's `swift-demangle`, run once for all the
/// names a profile holds (`$s4Wire6APNsIDO7isValidySbSSFZ` becomes `static APNsID.isValid(_:)`).
/// perf demangles C++ itself.
public enum SwiftDemangler {
    /// Whether `symbol` is a Swift mangled name.
    public static func isMangled(_ symbol: String) -> Bool {
        symbol.hasPrefix("$s") || symbol.hasPrefix("_$s") || symbol.hasPrefix("$S") || symbol.hasPrefix("_T0")
    }

    /// `swift-demangle` on `PATH`, or beside `swift` there, or nil on a machine without the
    /// toolchain (names then stay mangled).
    public static var executable: String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return directories.lazy.map { "\($0)/swift-demangle" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// The simplified names (no module names, no argument types) of `symbols`, the demangler
    /// reading and writing files in `folder`; empty when no demangler can be run. Started as
    /// `ChildLaunch` starts a child, not with Foundation's `Process`, whose own waiting would race
    /// `profile`'s reaper.
    public static func demangle(_ symbols: [String], in folder: String) -> [String: String] {
        guard let executable, !symbols.isEmpty else { return [:] }
        let input = (folder as NSString).appendingPathComponent("mangled.txt")
        let output = (folder as NSString).appendingPathComponent("demangled.txt")
        guard
            FileManager.default.createFile(
                atPath: input,
                contents: Data(symbols.joined(separator: "\n").utf8 + [0x0a])
            ),
            let pid = try? ChildLaunch.start(
                [executable, "--simplified", "--compact"],
                environment: ProcessInfo.processInfo.environment,
                inputPath: input,
                outputPath: output,
                errorPath: "/dev/null"
            )
        else { return [:] }
        guard ChildLaunch.waitForExit(pid, seconds: 60) else {
            kill(pid, SIGKILL)
            return [:]
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= symbols.count else { return [:] }
        return Dictionary(zip(symbols, lines.map(String.init)), uniquingKeysWith: { first, _ in first })
    }
}
