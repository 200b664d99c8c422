import Foundation

/// Finds the tools PushBench runs beside itself (`openssl`, `valgrind`, `strip`) as a shell would.
public enum ExecutableSearch {
    /// The first executable called `name` in `PATH`'s directories, or `nil`.
    public static func onPath(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
