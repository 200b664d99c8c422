import ArgumentParser

/// A length of time on the command line, with its unit: `250ms`, `5s`, `1.5m`, `1h`; a bare
/// number is in seconds. k6, vegeta and Go's flags write durations this way.
struct TimeSpan: ExpressibleByArgument, CustomStringConvertible, Equatable {
    /// The length in nanoseconds.
    let nanoseconds: UInt64

    init(seconds: Double) {
        nanoseconds = UInt64(seconds * 1e9)
    }

    init?(argument: String) {
        let units: [(suffix: String, seconds: Double)] = [("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600)]
        let unit = units.first { argument.hasSuffix($0.suffix) } ?? ("", 1)
        guard let number = Double(argument.dropLast(unit.suffix.count)), number > 0, number.isFinite,
            number * unit.seconds <= 86_400 * 365
        else { return nil }
        self.init(seconds: number * unit.seconds)
    }

    /// Whole milliseconds, at least 1.
    var milliseconds: Int { max(1, Int(nanoseconds / 1_000_000)) }

    var description: String {
        nanoseconds % 1_000_000_000 == 0 ? "\(nanoseconds / 1_000_000_000)s" : "\(milliseconds)ms"
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
