/// A CSV table with a header row, written per RFC 4180 (fields with commas, quotes or line breaks
/// are quoted, quotes doubled) so pandas and spreadsheets read it as written.
public struct CSVTable {
    /// Column names, each with its unit (`latency_us`, `completed_per_s`).
    public let columns: [String]
    /// The rows added so far.
    public private(set) var rows: [[String]] = []

    /// Creates an empty table.
    public init(columns: [String]) {
        self.columns = columns
    }

    /// Adds a row; it must have one field per column.
    public mutating func append(_ row: [String]) {
        precondition(row.count == columns.count, "CSV row has \(row.count) fields for \(columns.count) columns")
        rows.append(row)
    }

    /// The table as CSV text with CRLF line ends, as RFC 4180 specifies.
    public var text: String {
        ([columns] + rows).map { $0.map(Self.quoted).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    /// The table as aligned text columns for a terminal, header first, two spaces between
    /// columns and no trailing blanks.
    public var alignedLines: [String] {
        let all = [columns] + rows
        let widths = columns.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            var line = row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    private static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
