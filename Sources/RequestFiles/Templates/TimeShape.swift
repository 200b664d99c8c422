import Foundation

/// How a time placeholder is written: an offset from its time and a format, as in
/// `{{activity_end+10s|iso8601}}`. A service that is told when to act (a scheduler's
/// `fire_at`, a countdown's ISO target) reads the time in its own form.
struct TimeShape: Sendable, Equatable {
    /// How a time is written.
    enum Format: String, Sendable, CaseIterable {
        /// UNIX seconds, an integer: the default, as APNs' `timestamp`.
        case unix
        /// UNIX milliseconds, an integer.
        case unixMs = "unix_ms"
        /// ISO 8601 in UTC: `2026-12-02T17:30:00Z`, with milliseconds when the time has them
        /// (`2026-12-02T17:30:00.250Z`).
        case iso8601
        /// Seconds since 2001-01-01 00:00:00 UTC, as Swift's `Date` encodes itself by default.
        case appleReference = "apple_reference"
    }

    var offsetSeconds: Double = 0
    var format: Format = .unix

    /// UNIX seconds at Apple's reference date, 2001-01-01 00:00:00 UTC.
    static let appleReferenceUnix = 978_307_200.0

    /// `value`, a time, shifted and written as the shape says; any other value as it is.
    func apply(_ value: PlaceholderValue) -> PlaceholderValue {
        guard case .time(let unix) = value else { return value }
        let time = unix + offsetSeconds
        switch format {
        case .unix: return .integer(Int64(time.rounded(.down)))
        case .unixMs: return .integer(Int64((time * 1000).rounded(.down)))
        case .iso8601: return .text(Self.iso8601(time))
        case .appleReference:
            let seconds = ((time - Self.appleReferenceUnix) * 1000).rounded() / 1000
            return seconds == seconds.rounded() ? .integer(Int64(seconds)) : .json(Array("\(seconds)".utf8))
        }
    }

    /// `2026-12-02T17:30:00Z` for UNIX seconds `unix`, with its milliseconds when it has any.
    static func iso8601(_ unix: Double) -> String {
        let milliseconds = Int64((unix * 1000).rounded(.down))
        var seconds = time_t(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient)
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d",
            Int(parts.tm_year) + 1900,
            Int(parts.tm_mon) + 1,
            Int(parts.tm_mday),
            Int(parts.tm_hour),
            Int(parts.tm_min),
            Int(parts.tm_sec)
        ) + (fraction == 0 ? "Z" : String(format: ".%03dZ", fraction))
    }

    /// Reads what follows a time placeholder's name: `+30s`, `-5m`, `|iso8601`, or both, in
    /// that order (`+10s|unix_ms`); `nil` for nothing.
    /// - Throws: `TemplateSyntaxError` for an offset without its unit or an unknown format.
    static func parse(_ text: Substring, of name: String) throws(TemplateSyntaxError) -> TimeShape? {
        guard !text.isEmpty else { return nil }
        var shape = TimeShape()
        let parts = text.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        let offset = parts[0]
        if !offset.isEmpty {
            guard let sign = offset.first, sign == "+" || sign == "-", let seconds = seconds(offset.dropFirst())
            else {
                throw TemplateSyntaxError(
                    "{{\(name)\(text)}}: an offset is a sign, a number and its unit (ms, s, m, h or d), such as {{\(name)+30s}} or {{\(name)-5m}}"
                )
            }
            shape.offsetSeconds = sign == "-" ? -seconds : seconds
        }
        if parts.count == 2 {
            guard let format = Format(rawValue: String(parts[1])) else {
                throw TemplateSyntaxError(
                    "{{\(name)\(text)}}: unknown time format |\(parts[1]); the formats are "
                        + Format.allCases.map { "|\($0.rawValue)" }.joined(separator: ", ")
                )
            }
            shape.format = format
        }
        return shape
    }

    /// `30s`, `1.5m`, `250ms` as seconds; `nil` without a known unit.
    private static func seconds(_ text: Substring) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (unit, scale) in units where text.hasSuffix(unit) {
            guard let number = Double(text.dropLast(unit.count)), number.isFinite, number >= 0 else { return nil }
            return number * scale
        }
        return nil
    }
}
