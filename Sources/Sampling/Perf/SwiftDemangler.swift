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

    /// The simplified names (no module names, no argument types) of `symbols`; empty when no
    /// demangler can be run.
    public static func demangle(_ symbols: [String]) -> [String: String] {
        guard let executable, !symbols.isEmpty else { return [:] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--simplified", "--compact"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [:] }
        // Written from another thread: the demangler answers as it reads, and a pipe holds 64 KiB.
        let names = Data(symbols.joined(separator: "\n").utf8 + [0x0a])
        let writer = Thread {
            try? input.fileHandleForWriting.write(contentsOf: names)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard process.terminationStatus == 0, lines.count >= symbols.count else { return [:] }
        return Dictionary(zip(symbols, lines.map(String.init)), uniquingKeysWith: { first, _ in first })
    }
}
