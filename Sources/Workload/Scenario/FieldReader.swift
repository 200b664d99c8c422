/// Reads one mapping of a scenario file strictly: every value checked for its type and range,
/// every error naming its field (`cohorts[1].join_s`), and unknown keys refused, so a typo
/// cannot silently fall back to a default.
struct FieldReader {
    private let fields: [String: Any]
    let path: String
    private var read: Set<String> = []

    init(_ value: Any?, path: String) throws {
        guard let fields = value as? [String: Any] else {
            throw WorkloadError("\(path.isEmpty ? "the file" : path): expected a mapping of keys to values")
        }
        self.fields = fields
        self.path = path
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private mutating func value(_ key: String) -> Any? {
        read.insert(key)
        return fields[key]
    }

    /// A string, or `nil` when absent.
    mutating func string(_ key: String) throws -> String? {
        guard let raw = value(key) else { return nil }
        guard let text = raw as? String else { throw WorkloadError("\(name(key)): expected text, got \(raw)") }
        return text
    }

    /// A whole number in `range`, or `nil` when absent.
    mutating func integer(_ key: String, in range: ClosedRange<Int64>) throws -> Int64? {
        guard let raw = value(key) else { return nil }
        let number: Int64?
        switch raw {
        case let whole as Int: number = Int64(whole)
        case let real as Double where real.rounded() == real && abs(real) < 9e18: number = Int64(real)
        default: number = nil
        }
        guard let number else { throw WorkloadError("\(name(key)): expected a whole number, got \(raw)") }
        guard range.contains(number) else {
            throw WorkloadError("\(name(key)): must be \(range.lowerBound) to \(range.upperBound), not \(number)")
        }
        return number
    }

    /// A number in `range`, or `nil` when absent.
    mutating func number(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let raw = value(key) else { return nil }
        let number: Double? = (raw as? Double) ?? (raw as? Int).map(Double.init)
        guard let number, range.contains(number) else {
            throw WorkloadError(
                "\(name(key)): expected a number from \(range.lowerBound) to \(range.upperBound), got \(raw)"
            )
        }
        return number
    }

    /// A boolean, or `nil` when absent.
    mutating func boolean(_ key: String) throws -> Bool? {
        guard let raw = value(key) else { return nil }
        guard let flag = raw as? Bool else { throw WorkloadError("\(name(key)): expected true or false, got \(raw)") }
        return flag
    }

    /// One of an enumeration's raw values, or `nil` when absent.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, of _: Choice.Type) throws -> Choice?
    where Choice.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let choice = Choice(rawValue: text) else {
            let known = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw WorkloadError("\(name(key)): '\(text)' is not one of \(known)")
        }
        return choice
    }

    /// A list of mappings, each read by `element` with its own reader.
    mutating func list<Element>(_ key: String, _ element: (inout FieldReader) throws -> Element) throws -> [Element]? {
        guard let raw = value(key) else { return nil }
        guard let items = raw as? [Any] else { throw WorkloadError("\(name(key)): expected a list") }
        return try items.enumerated().map { index, item in
            var reader = try FieldReader(item, path: "\(name(key))[\(index)]")
            let value = try element(&reader)
            try reader.finish()
            return value
        }
    }

    /// A nested mapping's reader, or `nil` when absent.
    mutating func mapping(_ key: String) throws -> FieldReader? {
        guard let raw = value(key) else { return nil }
        return try FieldReader(raw, path: name(key))
    }

    /// The keys of this mapping, for mappings whose keys are data (priorities per event).
    var keys: [String] { fields.keys.sorted() }

    /// Refuses keys nobody asked for.
    func finish() throws {
        let unknown = Set(fields.keys).subtracting(read).sorted()
        guard unknown.isEmpty else {
            throw WorkloadError(
                "\(name(unknown[0])): unknown key; \(path.isEmpty ? "the file" : path) may have "
                    + read.sorted().joined(separator: ", ")
            )
        }
    }
}
