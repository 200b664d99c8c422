import Foundation

/// A traffic file as `pushbench mock --record` writes it: a header line, then one
/// `TrafficRecord` per answered push.
public enum TrafficFile {
    /// Every record of the file at `path`, in arrival order, as a `TrafficTable`: what the
    /// reports read, since a million-device run records millions of pushes.
    /// - Throws: `WorkloadError` naming the file, and the line of the first bad record.
    public static func table(_ path: String) throws -> TrafficTable {
        var table = TrafficTable()
        try forEachRecord(in: path) { table.append($0) }
        table.sortIntoArrivalOrder()
        return table
    }

    /// Reads the file a block at a time and hands over its records one by one, so that the
    /// file's text is never held whole.
    private static func forEachRecord(in path: String, _ body: (TrafficRecord) -> Void) throws {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw WorkloadError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? file.close() }
        var pending: [UInt8] = []
        var number = 0
        func line(_ bytes: ArraySlice<UInt8>) throws {
            let text = String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes, as: UTF8.self)
            guard !text.isEmpty else { return }
            number += 1
            guard number > 1 else {
                guard TrafficRecord.headers.contains(text) else {
                    throw WorkloadError(
                        "\(path) is not a traffic file: its first line must be \(TrafficRecord.header)"
                    )
                }
                return
            }
            do {
                body(try TrafficRecord(csvLine: Substring(text)))
            } catch {
                throw WorkloadError("\(path):\(number): \(error)")
            }
        }
        while true {
            let block: Data
            do {
                block = try file.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw WorkloadError("cannot read \(path): \(error.localizedDescription)")
            }
            guard !block.isEmpty else { break }
            pending.append(contentsOf: block)
            var start = pending.startIndex
            while let end = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try line(pending[start..<end])
                start = end + 1
            }
            pending.removeSubrange(..<start)
        }
        try line(pending[...])
        guard number > 0 else {
            throw WorkloadError("\(path) is not a traffic file: its first line must be \(TrafficRecord.header)")
        }
    }
}
