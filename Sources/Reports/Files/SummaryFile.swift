import Foundation

/// A run's `summary.json` read back, with typed access that names the file and the key when
/// something is missing, so a gate or a merge given the wrong file says which and why.
public struct SummaryFile {
    /// The file read.
    public let path: String
    /// Its top-level object.
    public let object: [String: Any]

    /// Reads `path`: a `summary.json`, or the run folder holding one.
    /// - Throws: `SummaryError` when it cannot be read, is not JSON, or is another schema.
    public init(contentsOf path: String) throws(SummaryError) {
        var isFolder: ObjCBool = false
        let file =
            FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            ? (path as NSString).appendingPathComponent("summary.json") : path
        guard let data = FileManager.default.contents(atPath: file) else {
            throw SummaryError("\(file): cannot read it (no such file, or no permission)")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw SummaryError("\(file): not a JSON object; expected a run's summary.json")
        }
        try self.init(object: object, path: file)
    }

    /// Wraps a decoded summary; `path` names it in errors.
    /// - Throws: `SummaryError` when its `schema_version` is not the one this build writes.
    public init(object: [String: Any], path: String = "summary") throws(SummaryError) {
        self.path = path
        self.object = object
        guard let version = object["schema_version"] as? Int, version == SummaryDocument.schemaVersion else {
            throw SummaryError(
                "\(path): schema_version is not \(SummaryDocument.schemaVersion): not a summary.json this pushbench reads"
            )
        }
    }

    /// A part of a summary (one entry of a list) read with the same checks; `path` names it.
    init(part object: [String: Any], path: String) {
        self.path = path
        self.object = object
    }

    /// The value at a dotted key path such as `counts.sent`, or `nil`.
    public func value(_ keyPath: String) -> Any? {
        var current: Any? = object
        for key in keyPath.split(separator: ".") {
            current = (current as? [String: Any])?[String(key)]
        }
        return current is NSNull ? nil : current
    }

    /// The number at `keyPath`.
    /// - Throws: `SummaryError` naming the file and key when it is missing or not a number.
    public func number(_ keyPath: String) throws(SummaryError) -> Double {
        guard let number = value(keyPath) as? NSNumber else { throw missing(keyPath, "a number") }
        return number.doubleValue
    }

    /// The whole number at `keyPath`.
    public func integer(_ keyPath: String) throws(SummaryError) -> Int {
        Int(try number(keyPath))
    }

    /// The text at `keyPath`.
    public func text(_ keyPath: String) throws(SummaryError) -> String {
        guard let text = value(keyPath) as? String else { throw missing(keyPath, "text") }
        return text
    }

    /// The true or false at `keyPath`.
    public func flag(_ keyPath: String) throws(SummaryError) -> Bool {
        guard let flag = value(keyPath) as? Bool else { throw missing(keyPath, "true or false") }
        return flag
    }

    /// The object of counts at `keyPath` (such as `rejected_by_reason`).
    public func tally(_ keyPath: String) throws(SummaryError) -> [String: Int] {
        guard let tally = value(keyPath) as? [String: Int] else { throw missing(keyPath, "an object of counts") }
        return tally
    }

    /// An error naming this file and `keyPath`.
    public func missing(_ keyPath: String, _ expected: String) -> SummaryError {
        SummaryError("\(path): \(keyPath) is missing or not \(expected)")
    }
}

/// A summary that cannot be used: unreadable, not JSON, another schema, or a key missing.
public struct SummaryError: Error, CustomStringConvertible {
    public let description: String

    /// Creates an error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
