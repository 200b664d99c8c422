import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Checks output paths before any work starts, so a run never measures for an hour and then
/// fails to write its report: each error is one line naming the flag, the path and why.
enum OutputPath {
    /// Makes sure `folder` exists (creating it and its parents) and can be written in.
    static func ensureFolder(_ folder: String, flag: String) throws {
        if let problem = problem(creatingFolder: folder) { throw CommandLineError("\(flag) \(folder): \(problem)") }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            // Foundation's error names no cause; the system call's does.
            let reason = mkdir(folder, 0o755) == 0 ? "" : ": \(String(cString: strerror(errno)))"
            throw CommandLineError("\(flag) \(folder): cannot create the folder\(reason)")
        }
        guard access(folder, W_OK) == 0 else { throw CommandLineError("\(flag) \(folder): cannot write in it") }
    }

    /// Makes sure a file can be created (or replaced) at `path`: its folder exists or can be
    /// made and is writable, and `path` is not a folder.
    static func ensureFile(_ path: String, flag: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard !isFolder.boolValue else { throw CommandLineError("\(flag) \(path) is a folder, not a file") }
            guard access(path, W_OK) == 0 else { throw CommandLineError("\(flag) \(path): cannot write it") }
            return
        }
        try ensureFolder(parent(of: path) ?? ".", flag: flag)
    }

    /// Why `folder` cannot be made, in words, or `nil` when it exists as a writable folder or
    /// its nearest existing ancestor is one.
    private static func problem(creatingFolder folder: String) -> String? {
        var path = folder
        while true {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
                if !isFolder.boolValue {
                    return path == folder ? "is a file, not a folder" : "\(path) is a file, not a folder"
                }
                return access(path, W_OK) == 0 ? nil : "cannot write in \(path) (permission denied)"
            }
            guard let parent = parent(of: path), parent != path else { return nil }
            path = parent
        }
    }

    /// The folder `path` is in, or `nil` for a name in the current folder. Not
    /// `NSString.deletingLastPathComponent`: Foundation traps on a one-letter relative path
    /// (`--reports-dir R`).
    private static func parent(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
