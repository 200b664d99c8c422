import Foundation

/// Writing a report's files: each whole or not at all, and a failure that names the file and
/// the system's reason.
public enum ReportFile {
    /// Writes `data` to `path` atomically (a full disk leaves no half-written file).
    ///
    /// - Throws: `ReportError` with the system's reason.
    public static func save(_ data: Data, toPath path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ReportError(path: path, underlying: error)
        }
    }

    /// Creates the folder at `path` and any folder above it that is missing.
    ///
    /// - Throws: `ReportError` with the system's reason.
    public static func makeFolder(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw ReportError(path: path, underlying: error)
        }
    }
}

/// A report file could not be written.
public struct ReportError: Error, CustomStringConvertible {
    /// The file or folder.
    public let path: String
    /// The system's reason.
    public let underlying: Error

    /// The failure to write `path`, for `underlying`.
    public init(path: String, underlying: Error) {
        self.path = path
        self.underlying = underlying
    }

    public var description: String {
        "could not write \(path): \(reason)"
    }

    /// The system's words for the POSIX error inside Foundation's wrapping ("No space left on
    /// device", "Not a directory"), or Foundation's own description when there is none.
    private var reason: String {
        var error = underlying as NSError
        while error.domain != NSPOSIXErrorDomain, let inner = error.userInfo[NSUnderlyingErrorKey] as? any Error {
            error = inner as NSError
        }
        return error.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32(error.code))) : "\(underlying)"
    }
}
