import Foundation

/// A traffic file as `pushbench mock --record` writes it: a header line, then one
/// `TrafficRecord` per answered push.
public enum TrafficFile {
    /// Every record of the file at `path`, in the file's order.
    /// - Throws: `WorkloadError` naming the file, and the line of the first bad record.
    public static func read(_ path: String) throws -> [TrafficRecord] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw WorkloadError("cannot read \(path): \(error.localizedDescription)")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
        guard let first = lines.first, TrafficRecord.headers.contains(String(first)) else {
            throw WorkloadError("\(path) is not a traffic file: its first line must be \(TrafficRecord.header)")
        }
        lines.removeFirst()
        return try lines.enumerated().map { number, line in
            do {
                return try TrafficRecord(csvLine: line)
            } catch {
                throw WorkloadError("\(path):\(number + 2): \(error)")
            }
        }
    }
}
