import Foundation

/// Reads a file the user named on the command line, with an error that names the file and says
/// in words what is wrong: it does not exist, it is a folder, it cannot be read, or it is not
/// text where text was expected. Never echoes the contents: the file may hold a key.
///
/// Foundation's own errors ("The file isn't in the correct format.", "NSCocoaErrorDomain error
/// 256") never reach the user through here.
public enum InputFile {
    /// The bytes of the file at `path`, `what` naming it in errors (`signing key`, `scenario`).
    /// - Throws: `InputFileError`.
    public static func bytes(_ path: String, what: String) throws(InputFileError) -> [UInt8] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw InputFileError("\(what) \(path): no such file")
        }
        guard !isFolder.boolValue else { throw InputFileError("\(what) \(path) is a folder, not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputFileError("\(what) \(path): cannot read it (permission denied)")
        }
        return Array(data)
    }

    /// The file at `path` as UTF-8 text.
    /// - Throws: `InputFileError`, also when the file holds a byte no text file has (a NUL or
    ///   another control character) or is not UTF-8, naming the first such byte's offset.
    public static func text(_ path: String, what: String) throws(InputFileError) -> String {
        let bytes = try bytes(path, what: what)
        if let offset = bytes.firstIndex(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            throw InputFileError(
                "\(what) \(path) is not a text file (byte \(offset) is \(String(format: "0x%02x", bytes[offset])))"
            )
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw InputFileError("\(what) \(path) is not a text file (it is not UTF-8)")
        }
        return text
    }
}

/// Why a file the user named could not be read: one line that names it.
public struct InputFileError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
