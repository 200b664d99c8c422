import ArgumentParser
import Synchronization

/// A length of time on the command line, with its unit: `500us`, `250ms`, `5s`, `1.5m`, `1h`.
///
/// One rule for every flag of every command, Go's and k6's: a unit is required, except for `0`,
/// and a bare number is refused with the fix (`--p99 250: a duration needs a unit, such as 250ms
/// or 250s`), since whether it meant seconds or milliseconds is exactly what a reader cannot
/// tell. The parser reports a value it refused only as invalid, so the refusal is kept
/// (`explain`) to say what is wrong with it.
struct TimeSpan: ExpressibleByArgument, CustomStringConvertible, Equatable {
    /// The length in nanoseconds.
    let nanoseconds: UInt64

    init(seconds: Double) {
        nanoseconds = UInt64(seconds * 1e9)
    }

    /// Reads `argument`.
    /// - Throws: `DurationError` saying what is wrong and how to write it.
    init(parsing argument: String) throws(DurationError) {
        let units: [(suffix: String, seconds: Double)] = [
            ("us", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600),
        ]
        guard let unit = units.first(where: { argument.hasSuffix($0.suffix) }) else {
            guard let number = Double(argument) else { throw DurationError(argument, .notADuration) }
            guard number == 0 else { throw DurationError(argument, .noUnit) }
            self.init(seconds: 0)
            return
        }
        guard let number = Double(argument.dropLast(unit.suffix.count)), number >= 0, number.isFinite,
            number * unit.seconds <= 86_400 * 365
        else { throw DurationError(argument, .notADuration) }
        self.init(seconds: number * unit.seconds)
    }

    init?(argument: String) {
        do {
            try self.init(parsing: argument)
        } catch {
            Self.lastRefusal.withLock { $0 = error }
            return nil
        }
    }

    /// The last value refused as a duration: the parser stops at the first bad value, so this is
    /// the one its message names, if that message is about a duration.
    private static let lastRefusal = Mutex<DurationError?>(nil)

    /// The parser's message about a value it could not read ("The value '250' is invalid for
    /// '--p99 <p99>'"), said as PushBench says bad input, with the fix, when the value was
    /// refused as a duration: `--p99 250: a duration needs a unit, such as 250ms or 250s`.
    static func explain(_ message: String) -> String {
        guard let refusal = lastRefusal.withLock({ $0 }),
            let match = message.firstMatch(of: /^The value '(.*)' is invalid for '(-[^ ']+)[^']*'/),
            match.1 == refusal.value
        else { return message }
        return "\(match.2) \(refusal.value): \(refusal)"
    }

    /// The length in seconds.
    var seconds: Double { Double(nanoseconds) / 1e9 }

    /// The length as the duration the libraries take: the one time type inside.
    var duration: Duration { .nanoseconds(Int64(clamping: nanoseconds)) }

    /// Whole milliseconds, at least 1.
    var milliseconds: Int { max(1, Int(nanoseconds / 1_000_000)) }

    var description: String {
        nanoseconds % 1_000_000_000 == 0 ? "\(nanoseconds / 1_000_000_000)s" : "\(milliseconds)ms"
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// Why a command-line value is not a duration, in words that show how to write one.
struct DurationError: Error, CustomStringConvertible, Sendable {
    /// What is wrong with a value.
    enum Problem: Sendable {
        /// A bare number other than 0.
        case noUnit
        /// Not a number with a unit, negative, or longer than a year.
        case notADuration
    }

    /// The value as given.
    let value: String
    let problem: Problem

    init(_ value: String, _ problem: Problem) {
        self.value = value
        self.problem = problem
    }

    var description: String {
        switch problem {
        case .noUnit: "a duration needs a unit, such as \(value)ms or \(value)s"
        case .notADuration: "not a duration such as 500us, 250ms, 30s, 5m or 1h (up to a year)"
        }
    }
}
