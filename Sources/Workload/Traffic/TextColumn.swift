/// A text column of `TrafficTable`: each distinct value stored once, each row a 4-byte number
/// into them. A recording repeats its push types, topics, provider tokens and device tokens
/// over and over; this keeps one copy of each.
struct TextColumn: Sendable {
    /// Each row's value, as its number in `values`.
    private(set) var ids: [Int32] = []
    private var values: [String] = []
    private var numbers: [String: Int32] = [:]

    /// Distinct values so far.
    var distinct: Int { values.count }

    subscript(row: Int) -> String { values[Int(ids[row])] }

    mutating func append(_ value: String) {
        if let number = numbers[value] {
            ids.append(number)
            return
        }
        let number = Int32(values.count)
        values.append(value)
        numbers[value] = number
        ids.append(number)
    }
}
