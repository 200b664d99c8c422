extension Duration {
    /// Reads a length of time written with its unit: `500us`, `250ms`, `5s`, `1.5m`, `1h`, up to
    /// a year.
    ///
    /// One rule for every flag of every command, Go's and k6's: a unit is required, except for
    /// `0`. A bare number is refused with the fix (`a duration needs a unit, such as 250ms or
    /// 250s`): whether it meant seconds or milliseconds is exactly what a reader cannot tell.
    /// - Throws: `DurationError` saying what is wrong and how to write it.
    public init(parsing text: String) throws(DurationError) {
        let units: [(suffix: String, seconds: Double)] = [
            ("us", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600),
        ]
        guard let unit = units.first(where: { text.hasSuffix($0.suffix) }) else {
            guard let number = Double(text) else { throw DurationError(text, .notADuration) }
            guard number == 0 else { throw DurationError(text, .noUnit) }
            self = .zero
            return
        }
        guard let number = Double(text.dropLast(unit.suffix.count)), number >= 0, number.isFinite,
            number * unit.seconds <= 86_400 * 365
        else { throw DurationError(text, .notADuration) }
        self = .nanoseconds(Int64(number * unit.seconds * 1e9))
    }
}

/// Why a value is not a duration, in words that show how to write one.
public struct DurationError: Error, CustomStringConvertible, Sendable {
    /// What is wrong with a value.
    public enum Problem: Sendable {
        /// A bare number other than 0.
        case noUnit
        /// Not a number with a unit, negative, or longer than a year.
        case notADuration
    }

    /// The value as given.
    public let value: String
    public let problem: Problem

    init(_ value: String, _ problem: Problem) {
        self.value = value
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .noUnit: "a duration needs a unit, such as \(value)ms or \(value)s"
        case .notADuration: "not a duration such as 500us, 250ms, 30s, 5m or 1h (up to a year)"
        }
    }
}
