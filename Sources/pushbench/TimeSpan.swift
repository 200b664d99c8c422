import ArgumentParser
import Basics
import Synchronization
import Transport

/// A length of time on the command line, with its unit: `500us`, `250ms`, `5s`, `1.5m`, `1h`,
/// read by `Duration(parsing:)`, whose rule it states: a bare number is refused with the fix
/// (`--p99 250: a duration needs a unit, such as 250ms or 250s`). The parser reports a value it
/// refused only as invalid, so the refusal is kept (`explain`) to say what is wrong with it.
struct TimeSpan: ExpressibleByArgument, CustomStringConvertible, Equatable {
    /// The length in nanoseconds.
    let nanoseconds: UInt64

    init(seconds: Double) {
        nanoseconds = UInt64(seconds * 1e9)
    }

    /// Reads `argument` (`Duration(parsing:)`).
    /// - Throws: `DurationError` saying what is wrong and how to write it.
    init(parsing argument: String) throws(DurationError) {
        nanoseconds = try Duration(parsing: argument).inNanoseconds
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
