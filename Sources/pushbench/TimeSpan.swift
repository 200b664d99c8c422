import ArgumentParser

/// A length of time on the command line, with its unit: `500us`, `250ms`, `5s`, `1.5m`, `1h`,
/// as k6, vegeta and Go's flags write durations. A bare number is in seconds; a flag whose
/// documented unit is milliseconds reads its values as `MillisecondSpan`.
struct TimeSpan: ExpressibleByArgument, CustomStringConvertible, Equatable {
    /// The length in nanoseconds.
    let nanoseconds: UInt64

    init(seconds: Double) {
        nanoseconds = UInt64(seconds * 1e9)
    }

    init?(argument: String) {
        guard let span = Self.parse(argument, bareUnitSeconds: 1) else { return nil }
        self = span
    }

    /// `argument` with its unit, or a bare number of `bareUnitSeconds` each; `nil` unless it is
    /// a finite length from 0 up to a year.
    static func parse(_ argument: String, bareUnitSeconds: Double) -> TimeSpan? {
        let units: [(suffix: String, seconds: Double)] = [
            ("us", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600),
        ]
        let unit = units.first { argument.hasSuffix($0.suffix) } ?? ("", bareUnitSeconds)
        guard let number = Double(argument.dropLast(unit.suffix.count)), number >= 0, number.isFinite,
            number * unit.seconds <= 86_400 * 365
        else { return nil }
        return TimeSpan(seconds: number * unit.seconds)
    }

    /// The length in seconds.
    var seconds: Double { Double(nanoseconds) / 1e9 }

    /// Whole milliseconds, at least 1.
    var milliseconds: Int { max(1, Int(nanoseconds / 1_000_000)) }

    var description: String {
        nanoseconds % 1_000_000_000 == 0 ? "\(nanoseconds / 1_000_000_000)s" : "\(milliseconds)ms"
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// A duration flag whose bare number is milliseconds, as its name or help documents
/// (`--timeout-ms 500`, `--rtt 40`); units are read as anywhere else (`--rtt 0.04s`).
struct MillisecondSpan: ExpressibleByArgument, CustomStringConvertible, Equatable {
    let span: TimeSpan

    init(milliseconds: Double) {
        span = TimeSpan(seconds: milliseconds / 1000)
    }

    init?(argument: String) {
        guard let span = TimeSpan.parse(argument, bareUnitSeconds: 1e-3) else { return nil }
        self.span = span
    }

    /// The length in milliseconds.
    var milliseconds: Double { Double(span.nanoseconds) / 1e6 }

    var description: String { span.description }

    static var defaultCompletionKind: CompletionKind { .default }
}
