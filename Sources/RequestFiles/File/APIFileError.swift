import Yams

/// An API request file that cannot be used, with the file and line to look at.
public struct APIFileError: Error, CustomStringConvertible, Equatable {
    /// `file:line: what is wrong`.
    public let description: String

    init(file: String, line: Int?, _ message: String) {
        description = line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }

    init(file: String, node: Node?, _ message: String) {
        self.init(file: file, line: node?.mark?.line, message)
    }
}
